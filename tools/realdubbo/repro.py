#!/usr/bin/env python3
"""Hand-minimised reproducers of every disagreement class run.sh reports, run through both sides
(the real-Dubbo driver and zonesim's CLI), printed with both answers.

  python3 repro.py <zonesim-checkout> [--profile 2.7]     (after build.sh, RD_PROFILE=2.7 build.sh for 2.7)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
S = "com.example.UserService"
C = f"consumer://10.20.1.5/{S}?application=web&interface={S}&side=consumer&methods=getUser,listUsers"


def p(host, extra=""):
    return f"dubbo://{host}/{S}?application=users&interface={S}&side=provider" + (f"&{extra}" if extra else "")


def route(rid, title, providers, consumer=C, url_rule=None, force=False, yaml=None, yaml_key=None,
          tag=None, tag_key=None, method="getUser", att=None):
    att = att or {}
    java = {"id": rid, "kind": "route", "consumer": consumer, "providers": providers, "method": method,
            "args": [], "attachments": att}
    argv = ["route", "--json", f"--consumer={consumer}"] + [f"--provider={x}" for x in providers]
    argv += [f"--method={method}"] + [f"--attachment={k}={v}" for k, v in att.items()]
    files = {}
    if url_rule is not None:
        java["condition"] = {"form": "url", "text": url_rule, "force": force}
        argv.append(f"--condition={url_rule}")
        if force:
            argv.append("--force")
    if yaml is not None:
        java["condition"] = {"form": "yaml", "text": yaml, "key": yaml_key}
        files["condition.yaml"] = yaml
        argv.append("--condition-file={{condition.yaml}}")
    if tag is not None:
        java["tag"] = {"text": tag, "key": tag_key}
        files["tag.yaml"] = tag
        argv.append("--tag-rule-file={{tag.yaml}}")
    return {"id": rid, "title": title, "component": "route", "java": java, "zs": {"argv": argv, "files": files}}


def weight(rid, title, providers, consumer=None, method="getUser", now=1_700_000_000_000):
    java = {"id": rid, "kind": "weight", "providers": providers, "consumer": consumer, "method": method,
            "args": [], "now": now}
    argv = ["select", "--loadbalance=random", "--count=1", f"--now={now}", f"--method={method}"]
    argv += [f"--provider={x}" for x in providers] + ([f"--consumer={consumer}"] if consumer else [])
    return {"id": rid, "title": title, "component": "weight", "java": java, "zs": {"argv": argv, "files": {}, "text": True}}


def select(rid, title, lb, providers, count=6, method="getUser", arg_sets=None):
    arg_sets = arg_sets or [[]]
    if lb != "roundrobin":
        arg_sets = [arg_sets[i % len(arg_sets)] for i in range(max(count, len(arg_sets)))]  # one pick per line
    java = {"id": rid, "kind": "select", "lb": lb, "providers": providers, "consumer": None, "method": method,
            "argSets": arg_sets, "count": count, "now": 1_700_000_000_000 if lb == "roundrobin" else None}
    argv = ["select", "--json", f"--loadbalance={lb}", f"--method={method}"] + [f"--provider={x}" for x in providers]
    files = {}
    if lb == "roundrobin":
        argv += [f"--count={count}", "--now=1700000000000"]
    else:
        files["args.txt"] = "".join(json.dumps(s) + "\n" for s in arg_sets)
        argv.append("--args-file={{args.txt}}")
    return {"id": rid, "title": title, "component": lb, "java": java, "zs": {"argv": argv, "files": files}}


Y = lambda *lines: "\n".join(lines) + "\n"  # noqa: E731

CASES = [
    # F1: default.<key> parameters
    weight("F1a", "default.weight on a provider URL", [p("10.0.0.1:20880", "default.weight=7"), p("10.0.0.2:20880", "weight=5&default.weight=7")]),
    route("F1b", "default.dubbo.tag makes a provider tagged in Dubbo (untagged call)",
          [p("10.20.3.3:20880", "default.dubbo.tag=gray"), p("10.20.3.4:20880")]),
    route("F1c", "default.region read by a then-part", [p("10.20.3.3:20880", "default.region=hz"), p("10.20.3.4:20880", "region=sh")],
          url_rule="=> region = hz"),
    select("F1d", "default.weight in round robin", "roundrobin", [p("10.0.0.1:20880", "default.weight=300"), p("10.0.0.2:20880")], count=4),
    # F2: scope / key of different kinds
    route("F2a", "scope: service with key = the consumer's application",
          [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "scope: service", "key: web", "force: true", "conditions:", '  - "=> host = 10.9.9.9"'), yaml_key="web"),
    route("F2b", "scope: application with key = the service's rule key",
          [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "scope: application", f'key: "{S}::"', "conditions:", '  - "=> host = 10.20.3.3"'), yaml_key=f"{S}::"),
    # F3: a null YAML condition (an empty list item)
    route("F3a", "force: true and an empty list item", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "force: true", "conditions:", '  - "=> host = 10.20.3.3"', "  -")),
    route("F3b", "force: false and a null item", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "conditions:", '  - "=> host = 10.20.3.3"', "  - null")),
    route("F3c", "for comparison: false and 123 items are read as text by both", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "conditions:", '  - "=> host = 10.20.3.3"', "  - 123", "  - false")),
    # documented: service key without trailing '::'
    route("D1", "key written without the empty :version:group", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "scope: service", f"key: {S}", "force: true", "conditions:", '  - "=> host = 10.9.9.9"'), yaml_key=S),
    route("D1b", "versioned reference, key without the trailing ':'",
          [p("10.20.3.3:20880", "version=1.0.0"), p("10.20.3.4:20880", "version=1.0.0")], consumer=C + "&version=1.0.0",
          yaml=Y("configVersion: v3.0", f'key: "{S}:1.0.0"', "force: true", "conditions:", '  - "=> host = 10.9.9.9"'), yaml_key=f"{S}:1.0.0"),
    # documented: v3.0 tag with an empty address list
    route("D2", "v3.0 tag rule, one tag with addresses: []", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          tag=Y("configVersion: v3.0", "key: users", "tags:", "  - name: blue", '    addresses: ["10.20.3.3:20880"]',
                "  - name: gray", "    addresses: []"), tag_key="users", att={"dubbo.tag": "blue"}),
    route("D2b", "keyless v3.0 tag rule with an empty tag, untagged call", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          tag=Y("configVersion: v3.0", "tags:", "  - name: gray", '    addresses: ["10.20.3.3:20880"]',
                "  - name: blue", "    addresses: []")),
    # documented: IPv6 provider against an IPv4 / anyhost tag address
    route("D3", "IPv6 provider, tag address 0.0.0.0:20880", [p("[fe80::1]:20880"), p("10.20.3.4:20881")],
          tag=Y("configVersion: v3.0", "key: users", "tags:", "  - name: gray", '    addresses: ["0.0.0.0:20880"]'),
          tag_key="users", att={"dubbo.tag": "gray"}),
    route("D3b", "IPv6 provider, tag address 0.0.0.0:20880, untagged call", [p("[fe80::1]:20880"), p("10.20.3.4:20881")],
          tag=Y("configVersion: v3.0", "key: users", "tags:", "  - name: gray", '    addresses: ["0.0.0.0:20880"]'),
          tag_key="users"),
    # by design: malformed rule text
    route("D4a", "malformed rule (Dubbo logs and ignores it)", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "force: true", "conditions:", '  - "host =&region = hz => host = 10.9.9.9"')),
    route("D4b", "malformed rule, disabled", [p("10.20.3.3:20880"), p("10.20.3.4:20880")],
          yaml=Y("configVersion: v3.0", "enabled: false", "conditions:", '  - "=> host =&region = hz"')),
    # documented: non-numeric hash.arguments (not generated by gen.py)
    select("D5", "hash.arguments=a", "consistenthash", [p("10.0.0.1:20880", "hash.arguments=a"), p("10.0.0.2:20880")],
           arg_sets=[["k1"], ["k2"]]),
    # both fail (counted as agreement): hash.nodes below 4 leaves the ring empty
    select("B1", "hash.nodes=2", "consistenthash", [p("10.0.0.1:20880", "hash.nodes=2"), p("10.0.0.2:20880")], arg_sets=[["k1"]]),
]


# The 2.7 profile (Driver27, zonesim --dubbo 2.7): what 2.7.23 answers differently from 3.3. Each but the
# last two agrees since issue 39; those two are documented divergences of the 2.7 profile.
V = "consumer://10.20.1.5/" + S + "?application=web&interface=" + S
CASES27 = [
    route("C1", "=> version != 2.0: a provider without version passes in 2.7 (ConditionRouter.java:269-275)",
          [p("10.0.0.1:20880", "version=1.0"), p("10.0.0.2:20880"), p("10.0.0.3:20880", "version=2.0")], consumer=V, url_rule="=> version != 2.0"),
    route("C2", "version != 2.0 => host = 10.0.0.3: a consumer without version matches the when-part in 2.7",
          [p("10.0.0.1:20880", "version=1.0"), p("10.0.0.2:20880"), p("10.0.0.3:20880", "version=2.0")], consumer=V,
          url_rule="version != 2.0 => host = 10.0.0.3"),
    route("C3", "then-part on the merged invoker URL: application is the consumer's in 2.7",
          [p("10.0.0.1:20880"), p("10.0.0.2:20880")], url_rule="=> application = users", force=True),
    route("T1", "dubbo.force.tag=true on the consumer URL is ignored without the attachment (RpcInvocation.getAttachment)",
          [p("10.0.0.1:20880", "dubbo.tag=gray"), p("10.0.0.2:20880")], consumer=C + "&dubbo.tag=blue&dubbo.force.tag=true"),
    select("H1", "bounded loads: one key moves on once its node took 1.5x the average", "consistenthash",
           [p("10.0.0.1:20880"), p("10.0.0.2:20880")], count=9, arg_sets=[["user-1"]]),
    weight("W1", "documented: 2.7.15+ warmup is quadratic (300 s of 600 s: 25, 3.3: 50)",
           [p("10.0.0.1:20880", "timestamp=1699999700000&warmup=600000")]),
    weight("W2", "documented: 2.7 takes <m>.weight only for a method listed whole in methods",
           [p("10.0.0.1:20880", "methods=getUserById&getUser.weight=7&weight=0"), p("10.0.0.2:20880", "weight=5")]),
]


def main():
    zs = os.path.abspath(sys.argv[1])
    profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else "3.3"
    global CASES
    if profile == "2.7":
        CASES = CASES27
        for c in CASES:
            c["zs"]["argv"].append("--dubbo=2.7")
    cache = os.environ.get("RD_CACHE", "/tmp/realdubbo-cache" if profile == "3.3" else "/tmp/realdubbo-cache-2.7")
    cp = open(os.path.join(cache, "classpath")).read().strip()
    with tempfile.TemporaryDirectory() as w:
        with open(f"{w}/j.jsonl", "w") as f:
            for c in CASES:
                f.write(json.dumps(c["java"]) + "\n")
        with open(f"{w}/z.jsonl", "w") as f:
            for c in CASES:
                f.write(json.dumps({"id": c["id"], "zs": c["zs"]}) + "\n")
        jout = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-Ddubbo.application.logger=jdk", "-cp", cp, "realdubbo.Driver" if profile == "3.3" else "realdubbo.Driver27"],
                              stdin=open(f"{w}/j.jsonl"), capture_output=True, text=True).stdout
        zout = subprocess.run(["node", os.path.join(HERE, "zs-batch.mjs"), zs], stdin=open(f"{w}/z.jsonl"),
                              capture_output=True, text=True).stdout
    j = {d["id"]: d for d in map(json.loads, jout.splitlines())}
    z = {d["id"]: d for d in map(json.loads, zout.splitlines())}
    for c in CASES:
        jd, zd = j[c["id"]], z[c["id"]]
        print(f"## {c['id']}: {c['title']}")
        if c["zs"]["files"]:
            for name, text in c["zs"]["files"].items():
                print(f"   {name}: " + text.strip().replace("\n", " | "))
        if "condition" in c["java"] and c["java"]["condition"]["form"] == "url":
            print(f"   rule: {c['java']['condition']['text']}  force={c['java']['condition']['force']}")
        for i, x in enumerate(c["java"]["providers"]):
            print(f"   p{i}: {x}")
        if c["java"].get("attachments"):
            print(f"   attachments: {c['java']['attachments']}")
        print("   Dubbo:   " + dubbo_answer(c, jd))
        print("   zonesim: " + zs_answer(c, zd))
        print()


def dubbo_answer(c, d):
    if "error" in d:
        return "throws " + d["error"][:150]
    log = f"  (log: {d['dubboLog'][0][:90]})" if d.get("dubboLog") else ""
    if "outcomes" in d:
        return "survivors " + " or ".join(str([f"p{i}" for i in o]) for o in d["outcomes"]) + log
    if "weights" in d:
        return f"weights {d['weights']}"
    return f"picks {d['picks']}"


def zs_answer(c, d):
    if d["code"] != 0:
        return f"exit {d['code']}: " + (d["stderr"].strip().splitlines() or [""])[0][:200]
    if c["zs"].get("text"):
        rows = [l.split() for l in d["stdout"].splitlines()]
        start = next(i for i, r in enumerate(rows) if r[:2] == ["provider", "weight"])
        return "weights " + str([int(r[1]) for r in rows[start + 1:] if len(r) == 4])
    doc = json.loads(d["stdout"])
    if "picks" in doc:
        return f"picks {doc['picks']}"
    provs = c["java"]["providers"]
    return "survivors " + str([f"p{provs.index(x)}" for x in doc["providers"]])


if __name__ == "__main__":
    main()
