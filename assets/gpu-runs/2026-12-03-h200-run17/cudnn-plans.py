import gzip,re,sys,datetime,collections
ents=[]; cur=None
for line in gzip.open(sys.argv[1],'rt',errors='replace'):
    m=re.match(r"I! CuDNN \(v\d+ \d+\) function (\w+)\(\) called:",line)
    if m: cur={'f':m.group(1),'lines':[]}; continue
    if cur is None: continue
    m=re.match(r"i! Time: (\S+)",line)
    if m: cur['t']=datetime.datetime.fromisoformat(m.group(1)).timestamp(); continue
    m=re.match(r"i! Process=\d+; Thread=(\d+)",line)
    if m: cur['th']=m.group(1); ents.append(cur); cur=None; continue
    cur['lines'].append(line.rstrip())
t0=ents[0]['t']
tot=collections.defaultdict(lambda:[0,0.0]); rows=[]
for a,b in zip(ents,ents[1:]):
    if a['f']=='cudnnBackendFinalize' and b['f']=='cudnnBackendFinalize' and a['lines'] and 'EXECUTION_PLAN_DESCRIPTOR' in a['lines'][0]:
        txt='\n'.join(a['lines'])
        op=re.search(r"operation: type=CUDNN_BACKEND_OPERATION_(\w+)_DESCRIPTOR",txt)
        op=op.group(1) if op else '?'
        w=re.search(r"(?:wDesc|dwDesc): type=CUDNN_BACKEND_TENSOR_DESCRIPTOR:\n.*\n.*\ni!\s+dimA: type=int; val=\[(\d+),(\d+),(\d+),(\d+)\]",txt)
        dw = w and w.group(2)=='1'
        eng=re.search(r"engine_id: type=int; val=(-?\d+)",txt).group(1)
        rc='RTC' if 'RUNTIME_COMPILATION: type=bool; val=true' in txt else ''
        d=b['t']-a['t']
        key=(op,'depthwise' if dw else 'dense',eng,rc)
        tot[key][0]+=1; tot[key][1]+=d
        rows.append((a['t']-t0,d,key))
print('plans finalized:',len(rows),'total s %.2f'%sum(r[1] for r in rows))
for k,v in sorted(tot.items(),key=lambda x:-x[1][1]): print(k, v[0], '%.2f s'%v[1])
print()
for a,b in zip(ents,ents[1:]):
    if a['f']=='cudnnBackendFinalize' and b['f']=='cudnnBackendFinalize' and a['lines'] and 'EXECUTION_PLAN_DESCRIPTOR' in a['lines'][0]:
        txt='\n'.join(a['lines'])
        if 'RUNTIME_COMPILATION: type=bool; val=true' not in txt: continue
        op=re.search(r"operation: type=CUDNN_BACKEND_OPERATION_(\w+)_DESCRIPTOR",txt).group(1)
        dims=re.findall(r"dimA: type=int; val=(\[[\d,]+\])",txt)
        st=re.search(r"convDesc.*?strideA: type=int; val=(\[[\d,]+\])",txt,re.S).group(1)
        dil=re.search(r"convDesc.*?dilationA: type=int; val=(\[[\d,]+\])",txt,re.S).group(1)
        eng=re.search(r"engine_id: type=int; val=(-?\d+)",txt).group(1)
        print(f"{a['t']-t0:7.2f} {b['t']-a['t']:.3f} {op[12:]:16s} e{eng} {' '.join(dims)} s{st} d{dil}")
