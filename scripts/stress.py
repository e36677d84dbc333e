#!/usr/bin/env python3
"""Randomized stress of the analysis: random valid architectures (gateways, functions with
every attribute, queues, pools, fan-outs, profiles, requirements) through `archcheck check`.

usage: scripts/stress.py BINARY [FIRST_SEED] [COUNT] [TIMEOUT_S]

Reports every run that crashes (exit > 3), exceeds TIMEOUT_S, or takes over 20 s; the models
are written to /tmp/archcheck-stress/mSEED.xml. Use the ASan/UBSan binary of `make asan`
(build/asan/archcheck) to catch memory errors too. A development tool, not a test: the
models are random, so a slow path it finds becomes a regression test in tests/.
"""
import os
import random
import subprocess
import sys
import time


def dur(r):
    return r.choice(["1ms", "10ms", "50ms", "100ms", "250ms", "1s", "5s"])


def rate(r):
    return r.choice(["0.01/s", "1/s", "10/s", "100/s", "1000/s", "20000/s"])


def model(seed):
    r = random.Random(seed)
    nodes=[]; routes=[]
    n=r.randint(1,5)
    kinds=[]
    for i in range(n):
        k=r.choice(["function","function","queue","gateway","pool"])
        kinds.append(k)
        nid=f"n{i}"
        if k=="function":
            d=dur(r)
            attrs=f'duration="{d}" timeout="{r.choice(["10s","30s","900s"])}" concurrency="{r.choice([1,2,10,70,1000])}"'
            if r.random()<0.5: attrs+=f' cold-start="{dur(r)}"'
            if r.random()<0.5: attrs+=f' keep-alive="{r.choice(["1s","10s","10min","100h"])}"'
            if r.random()<0.3: attrs+=f' scale-rate="{r.choice(["0.5/s","10/s","1000/s"])}"'
            if r.random()<0.3: attrs+=f' fail-prob="{r.choice(["0.1%","10%","50%","100%"])}"'
            if r.random()<0.3: attrs+=f' retries="{r.choice([0,1,3,10])}"'
            if r.random()<0.4: attrs+=' invocation="async"'
            nodes.append(f'<function id="{nid}" {attrs}/>')
        elif k=="queue":
            attrs=f'batch-size="{r.choice([1,10])}" max-consumers="{r.choice([1,5,1000])}" visibility-timeout="{r.choice(["1s","30s"])}" max-receives="{r.choice([1,3,5])}"'
            if r.random()<0.3: attrs+=f' capacity="{r.choice([1,100,1000000])}"'
            nodes.append(f'<queue id="{nid}" {attrs}/>')
        elif k=="gateway":
            attrs=''
            if r.random()<0.7: attrs+=f' rate-limit="{rate(r)}" burst="{r.choice([0,1,10,1000])}"'
            if r.random()<0.5: attrs+=f' timeout="{r.choice(["100ms","1s","29s"])}"'
            nodes.append(f'<gateway id="{nid}"{attrs}/>')
        else:
            nodes.append(f'<pool id="{nid}" servers="{r.choice([1,4,50])}" service-rate="{rate(r)}"/>')
    for i in range(1,n):
        src=r.randrange(0,i)
        fo=r.choice([1,1,1,2,8])
        extra=f' fanout="{fo}"' if fo>1 else ''
        routes.append(f'<route from="n{src}" to="n{i}"{extra}/>')
    prof=''
    if r.random()<0.4:
        prof='<profile source="s"><point at="0s" rate="%s"/><point at="30s" rate="%s"/><point at="60s" rate="%s"/></profile>'%(rate(r),rate(r),rate(r))
    reqs='<requirements><latency percentile="99" max="2s"/><loss max="1%"/>'+('<recovery max="60s"/>' if prof else '')+('<headroom min="1.2"/>' if r.random()<0.3 else '')+'</requirements>'
    return (f'<architecture format="1"><workload><source id="s" to="n0" rate="{rate(r)}"/>{prof}</workload>'+"".join(nodes)+"".join(routes)+reqs+'</architecture>')


def main():
    binary = sys.argv[1]
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    limit = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
    out = "/tmp/archcheck-stress"
    os.makedirs(out, exist_ok=True)
    bad = 0
    for seed in range(first, first + count):
        path = os.path.join(out, "m%d.xml" % seed)
        with open(path, "w") as f:
            f.write(model(seed) + "\n")
        t0 = time.monotonic()
        try:
            rc = subprocess.run([binary, "check", path], capture_output=True,
                                timeout=limit).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        dt = time.monotonic() - t0
        if rc == "timeout" or rc > 3:
            print("seed %d: %s (%s)" % (seed, rc, path))
            bad += 1
        elif dt > 20.0:
            print("seed %d: slow, %.1f s (%s)" % (seed, dt, path))
    print("%d of %d runs failed" % (bad, count))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
