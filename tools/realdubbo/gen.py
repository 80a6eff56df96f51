#!/usr/bin/env python3
"""Seeded case generator for the real-Dubbo differential test.

Writes one JSON case per line. Each case holds the same inputs twice: "java" (what Driver.java reads)
and "zs" (the zonesim CLI argv, plus files to write next to it), and "features" (tags naming the
constructs the case uses, for grouping disagreements). Same seed, same cases.

  python3 gen.py --seed 1 --route 3000 --tag 1500 --rr 300 --ch 300 --weight 400 > cases.jsonl

Components: condition rules (URL text, condition:// URLs, v3.0 and v3.1 YAML, keyed or not), tag rules
and static tags, round robin, consistent hash, and getWeight (a warmup grid, and parameter precedence
between provider and consumer, method and interface level). Rare constructs (default.* parameters,
IPv6 hosts, ZooKeeper-encoded URLs, malformed rule text, ...) come with small probabilities; each
case lists the ones it uses in "features".
"""
import argparse
import json
import random
import re

SERVICE = "com.example.UserService"
OTHER_SERVICE = "com.example.OrderService"
METHODS = ["getUser", "listUsers", "deleteUser"]
# provider/consumer `methods` lists may also name getUserById: Dubbo checks the list with
# String.contains, so "getUserById" contains "getUser"
LISTED_METHODS = METHODS + ["getUserById"]


class Gen:
    def __init__(self, seed, profile="3.3"):
        self.r = random.Random(seed)
        # "2.7": cases for Driver27 (Dubbo 2.7.23) and `zonesim --dubbo 2.7`: no v3.1 rules and no tag
        # `match` (3.x only: zonesim refuses them under 2.7); ranges and attachments[...] stay, as 2.7
        # reads them as literal text and a URL parameter.
        self.profile = profile

    def dubbo_argv(self):
        return ["--dubbo=2.7"] if self.profile == "2.7" else []

    # ---- small helpers --------------------------------------------------------------------
    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p):
        return self.r.random() < p

    def some(self, xs, lo, hi):
        n = self.r.randint(lo, min(hi, len(xs)))
        return self.r.sample(xs, n)

    # ---- URLs -----------------------------------------------------------------------------
    HOSTS = (
        [f"10.20.3.{i}" for i in range(1, 7)]
        + [f"10.30.3.{i}" for i in range(1, 7)]
        + [f"10.40.{a}.{b}" for a in (0, 1) for b in (1, 2, 3)]
        + ["192.168.1.10", "192.168.1.200"]
    )
    PORTS = [20880, 20881, 20890, 30001]
    CONSUMER_HOSTS = ["10.20.1.5", "10.30.1.7", "192.168.0.9", "10.40.9.9"]
    TAGS = ["gray", "blue", "gray|team1", "gray|team1|p1", "canary"]
    PAPPS = ["users", "users", "users", "users-gray", "orders"]
    CAPPS = ["web", "gateway", "admin"]

    def provider(self, feats, host=None, port=None, app=None, version=None):
        host = host or self.pick(self.HOSTS)
        port = port if port is not None else self.pick(self.PORTS)
        params = []
        if app is None:
            app = self.pick(self.PAPPS)
        if app != "":
            params.append(("application", app))
        params.append(("interface", SERVICE))
        params.append(("side", "provider"))
        params.append(("methods", ",".join(self.some(LISTED_METHODS, 1, 3))))
        if version:
            params.append(("version", version))
        if self.chance(0.6):
            params.append(("region", self.pick(["hz", "sh", "bj"])))
        if self.chance(0.5):
            params.append(("env", self.pick(["prod", "gray", "test"])))
        if self.chance(0.35):
            params.append(("dubbo.tag", self.pick(self.TAGS)))
            feats.add("provider-static-tag")
        if self.chance(0.2):
            params.append(("tier", self.pick(["gold", "silver", "5", "12"])))
        if self.chance(0.15):
            params.append(("weight", str(self.pick([0, 50, 100, 200]))))
        if self.chance(0.1):
            params.append(("lane", self.pick(["a", "b"])))
        if self.chance(0.01):  # rare: it is a confirmed finding and would mask others
            params.append((self.pick(["default.region", "default.env", "default.tier", "default.dubbo.tag"]),
                           self.pick(["hz", "prod", "gold", "gray"])))
            feats.add("default-prefix-param")
        self.r.shuffle(params)
        hp = f"{host}:{port}" if port else host
        if not port:
            feats.add("provider-no-port")
        if self.chance(0.01):
            hp = f"[fe80::{self.r.randint(1, 9)}]:{port or 20880}"
            feats.add("ipv6-provider")
        if self.chance(0.02):
            hp = "admin:secret@" + hp
            feats.add("provider-userinfo")
        proto = "dubbo"
        if self.chance(0.03):
            proto = "tri"
            feats.add("tri-provider")
        url = f"{proto}://{hp}/{SERVICE}?" + "&".join(f"{k}={v}" for k, v in params)
        if self.chance(0.03):
            feats.add("zk-encoded")
            from urllib.parse import quote
            url = quote(url, safe="")  # as ZooKeeper stores it (URL.encode of the full string)
        return url

    def providers(self, feats, n_lo=1, n_hi=7, version=None):
        n = self.r.randint(n_lo, n_hi)
        app = None
        if self.chance(0.8):
            app = self.pick(["users", "users", "users-gray"])  # one application for the list, as usual
        else:
            feats.add("mixed-provider-apps")
        if self.chance(0.05):
            app = ""
            feats.add("provider-no-application")
        seen = set()
        out = []
        for _ in range(n * 3):
            if len(out) >= n:
                break
            p = self.provider(feats, app=app, version=version)
            addr = p.split("/")[2] if "://" in p else p[:40]
            if addr in seen and not self.chance(0.1):
                continue
            if addr in seen:
                feats.add("duplicate-address")
            seen.add(addr)
            out.append(p)
        return out

    def consumer(self, feats, version=None):
        host = self.pick(self.CONSUMER_HOSTS)
        capp = self.pick(self.CAPPS)
        if self.chance(0.04):
            capp = "users"  # same application as most providers: ProviderAppStateRouter stands aside
            feats.add("same-app")
        params = [("application", capp), ("interface", SERVICE), ("side", "consumer")]
        params.append(("methods", ",".join(METHODS)))
        if version:
            params.append(("version", version))
        if self.chance(0.6):
            params.append(("region", self.pick(["hz", "sh", "bj"])))
        if self.chance(0.4):
            params.append(("env", self.pick(["prod", "gray", "test"])))
        if self.chance(0.25):
            params.append(("dubbo.tag", self.pick(self.TAGS)))
            feats.add("consumer-tag-param")
        if self.chance(0.1):
            params.append(("dubbo.force.tag", self.pick(["true", "false"])))
            feats.add("consumer-force-tag-param")
        if self.chance(0.15):
            params.append(("tier", self.pick(["gold", "5"])))
        if self.chance(0.3):
            params.append(("timestamp", "1700000000000"))
        self.r.shuffle(params)
        return f"consumer://{host}/{SERVICE}?" + "&".join(f"{k}={v}" for k, v in params)

    ARG_POOL = ["1", "7", "42", "-3", "abc", "user-17", "10.20.3.1", "1.5", "0", "15", "007", "99999999999", ""]

    def invocation(self, feats):
        method = self.pick(METHODS + [None])
        if method is None:
            feats.add("no-method")
        args = [self.pick(self.ARG_POOL) for _ in range(self.r.randint(0, 3))]
        if self.chance(0.03):
            # generic call: RpcUtils.getMethodName reads the real name from arguments[0]
            method = self.pick(["$invoke", "$invokeAsync"])
            args = [self.pick(METHODS)] + args
            feats.add("generic-invoke")
        att = {}
        for _ in range(self.r.randint(0, 2)):
            k = self.pick(["dubbo.tag", "dubbo.tag", "lane", "lane.tag", "region", "dubbo.force.tag", "userId"])
            if k == "dubbo.tag":
                v = self.pick(self.TAGS + [""])
                feats.add("attachment-tag")
            elif k == "dubbo.force.tag":
                v = self.pick(["true", "false", "TRUE"])
                feats.add("attachment-force-tag")
            elif k == "userId":
                v = self.pick(["3", "15", "150", "x"])
            else:
                v = self.pick(["a", "b", "hz", "x"])
            att[k] = v
        return method, args, att

    # ---- condition rules ------------------------------------------------------------------
    def glob(self, feats, pool, kind):
        """One value pattern for a key: literal, wildcard, range, $reference."""
        c = self.r.random()
        v = self.pick(pool)
        if c < 0.45:
            return v
        if c < 0.65:
            s = self.pick(["prefix", "suffix", "middle", "star", "multi"])
            feats.add("glob-" + s)
            if s == "star":
                return "*"
            if s == "prefix":
                return v[: self.r.randint(1, max(1, len(v) - 1))] + "*"
            if s == "suffix":
                return "*" + v[self.r.randint(1, max(1, len(v) - 1)):]
            if s == "middle":
                i = self.r.randint(1, max(1, len(v) - 1))
                return v[:i] + "*" + v[i + 1:]
            # two stars: Dubbo only honours the last one
            return "*" + v[1:-1] + "*" if len(v) > 2 else "*"
        if c < 0.85 and kind in ("num", "port"):
            feats.add("range")
            a = self.pick(["", "0", "1", "5", "15", "20880", "20881", "-5", "100", "99999999999"])
            b = self.pick(["", "3", "10", "42", "20885", "30000", "-1", "x"])
            if self.chance(0.05):
                feats.add("range-three-parts")
                return f"{a}~{b}~7"
            if a == "" and b == "":
                feats.add("range-empty")
            return f"{a}~{b}"
        if c < 0.92:
            feats.add("dollar-ref")
            return "$" + self.pick(["region", "env", "host", "application", "tier", "nosuch"])
        return v

    WHEN_KEYS = [
        ("host", "ip"), ("application", "capp"), ("method", "method"), ("arguments[0]", "num"),
        ("arguments[1]", "num"), ("arguments[3]", "num"), ("attachments[lane]", "str"),
        ("attachments[userId]", "num"), ("attachments[lane.tag]", "str"), ("region", "region"),
        ("env", "env"), ("side", "side"), ("consumer.host", "ip"), ("tier", "num"),
        ("port", "port"), ("protocol", "proto"), ("dubbo.tag", "tag"), ("methods", "method"),
        ("arguments[x]", "num"), ("arguments[0].name", "num"), ("attachments[]", "str"),
        ("address", "addr"), ("interface", "svc"), ("path", "svc"), ("Host", "ip"), ("username", "str"),
    ]
    THEN_KEYS = [
        ("host", "ip"), ("host", "ip"), ("port", "port"), ("application", "papp"), ("region", "region"),
        ("env", "env"), ("dubbo.tag", "tag"), ("address", "addr"), ("protocol", "proto"),
        ("tier", "num"), ("provider.host", "ip"), ("weight", "num"), ("lane", "str"),
        ("method", "method"), ("interface", "svc"), ("side", "side"), ("version", "str"),
    ]

    def pool(self, kind):
        return {
            "ip": self.HOSTS + self.CONSUMER_HOSTS,
            "capp": self.CAPPS,
            "papp": self.PAPPS,
            "method": METHODS,
            "num": ["1", "7", "42", "5", "15", "abc", "-3", "0", "gold", "12", "007", "99999999999"],
            "str": ["a", "b", "x", "hz"],
            "region": ["hz", "sh", "bj"],
            "env": ["prod", "gray", "test"],
            "side": ["consumer", "provider"],
            "port": [str(p) for p in self.PORTS],
            "proto": ["dubbo", "consumer", "tri"],
            "tag": self.TAGS,
            "addr": [f"{h}:{p}" for h in self.HOSTS[:8] for p in self.PORTS[:2]],
            "svc": [SERVICE, OTHER_SERVICE, "com.example.*"],
        }[kind]

    def condition_part(self, feats, keys, lo, hi, side):
        n = self.r.randint(lo, hi)
        parts = []
        used = []
        for i in range(n):
            key, kind = self.pick(keys)
            if key in used:
                feats.add("repeated-key")
            used.append(key)
            if key.startswith("consumer.") or key.startswith("provider."):
                feats.add("prefix-key")
            if key.startswith("arguments["):
                feats.add("arguments")
            if key.startswith("attachments["):
                feats.add("attachments")
                if "." in key:
                    feats.add("attachment-key-with-dot")
            if key == "method" and side == "then":
                feats.add("method-in-then")
            op = "=" if self.chance(0.7) else "!="
            if op == "!=":
                feats.add("mismatch")
            vals = [self.glob(feats, self.pool(kind), kind) for _ in range(self.r.randint(1, 3))]
            if self.chance(0.02):
                vals = [self.pick(["consumer.gray", "provider.gray", "a.consumer.b"])]
                feats.add("prefix-in-value")  # Dubbo's init() drops every "consumer." / "provider."
            if self.chance(0.02):
                feats.add("empty-value")
                parts.append(f"{key} {op}")
                continue
            if len(vals) > 1:
                feats.add("comma-list")
            clause = f"{key} {op} {','.join(vals)}"
            if self.chance(0.1):
                # both = and != on one key
                clause += f" & {key} {'!=' if op == '=' else '='} {self.glob(feats, self.pool(kind), kind)}"
                feats.add("match-and-mismatch")
            parts.append(clause)
        joiner = self.pick([" & ", " & ", " & ", "&", " &\t"])
        if n > 1 and self.chance(0.05):
            joiner = " "  # Dubbo: a key after whitespace starts a new matcher (replacing a same-key one)
            feats.add("space-joined")
        return joiner.join(parts)

    def url_rule(self, feats):
        c = self.r.random()
        if c > 0.99:
            feats.add("double-arrow")
            return self.condition_part(feats, self.WHEN_KEYS, 1, 1, "when") + " => " + \
                self.condition_part(feats, self.THEN_KEYS, 1, 1, "then") + " => host = 10.20.*"
        if c < 0.08:
            feats.add("no-when")
            return "=> " + self.condition_part(feats, self.THEN_KEYS, 1, 2, "then")
        when = self.condition_part(feats, self.WHEN_KEYS, 1, 2, "when")
        if c < 0.14:
            feats.add("blank-then")
            return when + " =>"
        if c < 0.17:
            feats.add("false-then")
            return when + " => false"
        if c < 0.20:
            feats.add("true-when")
            when = "true"
        if c < 0.22:
            feats.add("no-arrow")
            return self.condition_part(feats, self.THEN_KEYS, 1, 2, "then")
        return when + " => " + self.condition_part(feats, self.THEN_KEYS, 1, 2, "then")

    def mock_inputs(self, feats, providers, att):
        """MockInvokersSelector: mock:// providers and the invocation.need.mock attachment."""
        if self.chance(0.04):
            providers.insert(self.r.randint(0, len(providers)),
                             f"mock://{self.pick(self.HOSTS)}:20880/{SERVICE}?application={param_of(providers[0], 'application') or 'users'}&interface={SERVICE}")
            feats.add("mock-provider")
        if self.chance(0.04):
            att["invocation.need.mock"] = self.pick(["true", "false", "TRUE", "x"])
            feats.add("need-mock")

    def route_case(self, i):
        feats = set()
        version = "1.0.0" if self.chance(0.1) else None
        if version:
            feats.add("versioned")
        consumer = self.consumer(feats, version)
        providers = self.providers(feats, version=version)
        method, args, att = self.invocation(feats)
        self.mock_inputs(feats, providers, att)
        form = self.pick(["url", "url", "url", "curl", "v30", "v30", "v30", "v31"])
        if form == "v31" and self.profile == "2.7":
            form = "v30"
        feats.add("form-" + form)
        java = {"kind": "route", "consumer": consumer, "providers": providers, "method": method,
                "args": args, "attachments": att}
        argv = ["route", "--json", f"--consumer={consumer}"] + self.dubbo_argv() + [f"--provider={p}" for p in providers]
        if method is not None:
            argv.append(f"--method={method}")
        argv += [f"--arg={a}" for a in args]
        argv += [f"--attachment={k}={v}" for k, v in att.items()]
        files = {}
        if form == "url":
            rule = self.url_rule(feats)
            force = self.chance(0.5)
            feats.add("force" if force else "no-force")
            java["condition"] = {"form": "url", "text": rule, "force": force}
            argv.append(f"--condition={rule}")
            if force:
                argv.append("--force")
        elif form == "curl":
            rule = self.url_rule(feats)
            enc = self.pick(["pct", "pct", "pct", "plus", "raw"])
            feats.add("curl-" + enc)
            if enc == "pct":
                params = [("rule", url_encode(rule))]
            elif enc == "plus":
                from urllib.parse import quote_plus
                params = [("rule", quote_plus(rule))]
            else:
                params = [("rule", rule)]  # unencoded: an '&' in the rule ends the parameter
            if self.chance(0.5):
                params.append(("force", self.pick(["true", "false"])))
            if self.chance(0.3):
                params.append(("enabled", self.pick(["true", "false"])))
                feats.add("curl-enabled-" + params[-1][1])
            if self.chance(0.3):
                params.append(("runtime", self.pick(["true", "false"])))
            params.append(("category", "routers"))
            params.append(("dynamic", "false"))
            self.r.shuffle(params)
            text = f"condition://0.0.0.0/{SERVICE}?" + "&".join(f"{k}={v}" for k, v in params)
            java["condition"] = {"form": "curl", "text": text}
            argv.append(f"--condition={text}")
        else:
            yaml_text, key = self.yaml_condition(feats, form, consumer, providers, version)
            java["condition"] = {"form": "yaml", "text": yaml_text, "key": key}
            if form == "v31":
                java["repeat"] = 4000  # enough draws to see every destination of weight >= 1 (p ~ 1e-8 to miss one)
            files["condition.yaml"] = yaml_text
            argv.append("--condition-file={{condition.yaml}}")
        return {"id": f"route-{i:05d}", "component": "condition-" + form, "java": java,
                "zs": {"argv": argv, "files": files}, "features": sorted(feats)}

    def yaml_condition(self, feats, form, consumer, providers, version):
        lines = []
        if form == "v31":
            lines.append(f"configVersion: {self.pick(['v3.1'] * 12 + ['V3.1', 'v3.10'])}")
        elif self.chance(0.8):
            lines.append(f"configVersion: {self.pick(['v3.0', 'v3.0', 'v2.7', 'v3.0', 'V3.0'])}")
        key = None
        scope = None
        k = self.r.random()
        capp = param_of(consumer, "application")
        papp = param_of(unquote(providers[0]), "application") if providers else ""
        svc_key = SERVICE + ":" + (version or "") + ":"
        if k < 0.35:
            feats.add("keyless")
            if self.chance(0.5):
                scope = "service"
        elif k < 0.65:
            scope = "service"
            key = self.pick([svc_key, svc_key, OTHER_SERVICE + "::"])
            feats.add("key-service-" + ("own" if key == svc_key else "other"))
            if self.chance(0.08):
                key = SERVICE  # zonesim also accepts the short form (documented divergence)
                feats.add("key-service-short")
        else:
            scope = "application"
            apps = [param_of(unquote(p), "application") for p in providers]
            key = self.pick([capp, papp or "users", "someapp"] + [a for a in apps[1:] if a and a != papp][:1])
            feats.add("key-app-" + ("consumer" if key == capp else "provider" if key == papp else
                                    "provider-nonfirst" if key in apps else "other"))
        if self.chance(0.03):
            # scope says one kind of key, the key is the other kind
            if scope == "application":
                scope, key = "application", svc_key
            else:
                scope, key = "service", capp
            feats.add("scope-key-mismatch")
        if scope:
            lines.append(f"scope: {scope}")
        if key is not None:
            lines.append(f"key: {yaml_str(key)}")
        force = self.pick([True, False, None])
        if force is not None:
            spelled = str(force).lower()
            if self.chance(0.08):
                spelled = self.pick(["yes", "no", "True", "FALSE", '"true"', "on"])
                feats.add("yaml-bool-spelling")
            lines.append(f"force: {spelled}")
            feats.add("force" if force else "no-force")
        if self.chance(0.3):
            lines.append(f"runtime: {self.pick(['true', 'false'])}")
        if self.chance(0.2):
            en = self.pick(["true", "false"])
            lines.append(f"enabled: {en}")
            feats.add("enabled-" + en)
        if self.chance(0.04):
            lines.append(f"priority: {self.pick([0, 1, 5])}")
        lines.append("conditions:")
        if form == "v31":
            for _ in range(self.r.randint(1, 2)):
                when = self.condition_part(feats, self.WHEN_KEYS, 0, 2, "when") if self.chance(0.6) else ""
                lines.append("  - from:")
                lines.append(f"      match: {yaml_str(when)}")
                lines.append("    to:")
                nd = self.pick([1, 2, 2, 3, 3])
                if nd > 1:
                    feats.add("multi-destination")
                for _ in range(nd):
                    if self.chance(0.7):
                        # broad destinations, so that several are non-empty and the weighted draw matters
                        then = self.pick(["region=hz", "region=sh,bj", "region!=hz", "host=10.20.*", "host=10.30.*,10.40.*",
                                          "env=prod", "env!=prod", "port=20880", "application=users*", ""])
                        if then == "":
                            feats.add("v31-empty-destination")
                    else:
                        then = self.condition_part(feats, self.THEN_KEYS, 1, 2, "then")
                    lines.append(f"      - match: {yaml_str(then)}")
                    if self.chance(0.7):
                        w = self.r.randint(1, 10) if not self.chance(0.05) else 0
                        if w == 0:
                            feats.add("v31-weight-0")
                        lines.append(f"        weight: {w}")
                    else:
                        feats.add("default-weight")
        else:
            for _ in range(self.r.randint(1, 3)):
                if self.chance(0.02):
                    lines.append("  -" + self.pick([" true", " 123", " false", " null", "", " ~"]))
                    feats.add("yaml-nonstring-condition")
                elif self.chance(0.03):
                    rule = self.url_rule(feats).replace("\t", " ")
                    lines.append("  - >")
                    lines.append("    " + rule.replace(" => ", "\n    =>\n    "))
                    feats.add("yaml-folded")
                else:
                    lines.append(f"  - {yaml_str(self.url_rule(feats))}")
        return "\n".join(lines) + "\n", key

    # ---- tag rules -----------------------------------------------------------------------
    def address_pattern(self, feats, providers):
        c = self.r.random()
        hosts = [hostport(p) for p in providers if "[" not in hostport(p)] or ["10.20.3.1:20880"]
        hp = self.pick(hosts)
        host = hp.split(":")[0]
        if c < 0.45:
            return hp
        if c < 0.55:
            feats.add("addr-host-only")
            return host
        if c < 0.65:
            feats.add("addr-anyhost-port")
            return "0.0.0.0:" + (hp.split(":")[1] if ":" in hp else "20880")
        if c < 0.75:
            feats.add("addr-star-segment")
            seg = host.split(".")
            seg[3] = "*"
            return ".".join(seg) + (":" + hp.split(":")[1] if ":" in hp and self.chance(0.5) else "")
        if c < 0.82:
            feats.add("addr-range-segment")
            seg = host.split(".")
            seg[3] = self.pick(["1-3", "2-6", "4-200"])
            return ".".join(seg)
        if c < 0.9:
            feats.add("addr-cidr")
            seg = host.split(".")
            return self.pick([f"{seg[0]}.{seg[1]}.0.0/16", f"{seg[0]}.{seg[1]}.{seg[2]}.0/24", f"{host}/32", "10.0.0.0/8"])
        if c < 0.95:
            feats.add("addr-partial-wildcard")
            seg = host.split(".")
            return f"{seg[0]}.{seg[1]}.*"
        if c < 0.97:
            feats.add("addr-odd-form")
            seg = host.split(".")
            port = hp.split(":")[1] if ":" in hp else "20880"
            return self.pick([f"{seg[0]}.{seg[1]}.{seg[2]}.0{seg[3]}", f"{host}:*", f"{host}:0{port}", "*.*.*.*",
                              f" {hp}", f"{seg[0]}.{seg[1]}.{seg[2]}.*:{port}"])
        feats.add("addr-other-ip")
        return self.pick(["10.99.0.1:20880", "172.16.0.1", "*"])

    def tag_rule(self, feats, providers, capp):
        lines = []
        v30 = self.chance(0.7)
        if v30:
            lines.append("configVersion: v3.0")
            feats.add("tag-v3.0")
        else:
            if self.chance(0.5):
                lines.append("configVersion: v2.7")
            feats.add("tag-pre-v3.0")
        force = self.pick([True, False, None])
        if force is not None:
            lines.append(f"force: {str(force).lower()}")
            feats.add("tag-force-" + str(force).lower())
        if self.chance(0.2):
            en = self.pick(["true", "false"])
            lines.append(f"enabled: {en}")
            feats.add("tag-enabled-" + en)
        if self.chance(0.3):
            lines.append(f"runtime: {self.pick(['true', 'false'])}")
        papp = param_of(unquote(providers[0]), "application") if providers else ""
        others = [param_of(unquote(p), "application") for p in providers[1:]]
        others = [a for a in others if a and a != papp]
        key = None
        k = self.r.random()
        if others and k < 0.3:
            key = others[0]
            feats.add("tag-key-nonfirst-provider-app")
        elif k < 0.4:
            feats.add("tag-keyless")
        elif k < 0.85:
            key = papp or "users"
            feats.add("tag-key-provider-app")
        else:
            key = self.pick([capp, "otherapp"])
            feats.add("tag-key-other-app")
        if key is not None:
            lines.append(f"key: {yaml_str(key)}")
        lines.append("tags:")
        names = self.some(self.TAGS, 1, 3)
        for name in names:
            lines.append(f"  - name: {yaml_str(name)}")
            use_match = v30 and self.chance(0.4) and self.profile != "2.7"
            if use_match:
                feats.add("tag-match")
                lines.append("    match:")
                for _ in range(self.r.randint(1, 2)):
                    mk = self.pick(["region", "env", "tier", "lane", "application", "dubbo.tag", "nosuch"])
                    mt = self.pick(["exact", "exact", "prefix", "regex", "wildcard", "empty", "noempty"])
                    feats.add("tag-match-" + mt)
                    mv = {
                        "exact": self.pick(["hz", "sh", "prod", "gray", "gold", "a", "users"]),
                        "prefix": self.pick(["h", "g", "p", "u"]),
                        "regex": self.pick(["h.*", "(hz|sh)", "[a-z]+", "g.a?y", "gold|silver"]),
                        "wildcard": self.pick(["*", "hz", "gold"]),
                        "empty": "''",
                        "noempty": "''",
                    }[mt]
                    lines.append(f"      - key: {mk}")
                    lines.append(f"        value:")
                    lines.append(f"          {mt}: {mv if mv == chr(39) * 2 else yaml_str(mv)}")
            else:
                # an empty list is rare on purpose: in a v3.0 rule Dubbo then drops the whole rule (an
                # NPE in TagRouterRule.init, a divergence fidelity.md documents) and would mask the rest
                n_addr = 0 if self.chance(0.04) else self.r.randint(1, 3)
                addrs = [self.address_pattern(feats, providers) for _ in range(n_addr)]
                if not addrs:
                    feats.add("tag-empty-addresses")
                lines.append("    addresses: [" + ", ".join(yaml_str(a) for a in addrs) + "]")
        return "\n".join(lines) + "\n", key

    def tag_case(self, i):
        feats = set()
        consumer = self.consumer(feats)
        providers = self.providers(feats, 1, 7)
        method, args, att = self.invocation(feats)
        self.mock_inputs(feats, providers, att)
        if self.chance(0.6) and "dubbo.tag" not in att:
            att["dubbo.tag"] = self.pick(self.TAGS + ["", "nosuch"])
            feats.add("attachment-tag")
        java = {"kind": "route", "consumer": consumer, "providers": providers, "method": method,
                "args": args, "attachments": att}
        argv = ["route", "--json", f"--consumer={consumer}"] + self.dubbo_argv() + [f"--provider={p}" for p in providers]
        if method is not None:
            argv.append(f"--method={method}")
        argv += [f"--arg={a}" for a in args]
        argv += [f"--attachment={k}={v}" for k, v in att.items()]
        files = {}
        component = "tag-static"
        if self.chance(0.7):
            component = "tag-rule"
            text, key = self.tag_rule(feats, providers, param_of(consumer, "application"))
            java["tag"] = {"text": text, "key": key}
            files["tag.yaml"] = text
            argv.append("--tag-rule-file={{tag.yaml}}")
        return {"id": f"tag-{i:05d}", "component": component, "java": java,
                "zs": {"argv": argv, "files": files}, "features": sorted(feats)}

    # ---- load balancers ------------------------------------------------------------------
    NOW = 1_700_000_000_000

    def lb_provider(self, feats, idx, extra):
        host = f"10.9.{idx // 200}.{idx % 200 + 1}"
        port = self.pick([20880, 20881])
        params = [("application", "users"), ("interface", SERVICE), ("side", "provider")] + extra
        self.r.shuffle(params)
        return f"dubbo://{host}:{port}/{SERVICE}?" + "&".join(f"{k}={v}" for k, v in params)

    def weight_params(self, feats, method_pool):
        extra = []
        if self.chance(0.8):
            extra.append(("weight", str(self.pick([0, 1, 2, 3, 5, 10, 50, 100, 100, 200, -5]))))
        if self.chance(0.3):
            m = self.pick(method_pool)
            extra.append((f"{m}.weight", str(self.pick([1, 7, 300]))))
            feats.add("method-weight")
            if self.chance(0.6):
                extra.append(("methods", ",".join(self.some(LISTED_METHODS, 1, 3))))
                feats.add("methods-list")
        if self.chance(0.02):
            extra.append((self.pick(["default.weight", "default.warmup"]), str(self.pick([7, 60000]))))
            feats.add("default-prefix-param")
        if self.chance(0.3):
            up = self.pick([1000, 30000, 59999, 300000, 599999])
            extra.append(("timestamp", str(self.NOW - up)))
            feats.add("warmup")
            if self.chance(0.4):
                extra.append(("warmup", str(self.pick([60000, 120000, 600000]))))
        return extra

    def lb_consumer(self, feats, method_pool, for_hash=False):
        if not self.chance(0.4):
            return None
        feats.add("with-consumer")
        params = [("application", "web"), ("interface", SERVICE), ("side", "consumer")]
        if for_hash:
            if self.chance(0.4):
                params.append(("hash.arguments", self.pick(["0", "1", "0,1", "1,0"])))
                feats.add("consumer-hash-arguments")
            if self.chance(0.3):
                params.append(("hash.nodes", str(self.pick([4, 16, 160, 7]))))
                feats.add("consumer-hash-nodes")
            if self.chance(0.2):
                m = self.pick(method_pool)
                params.append((f"{m}.hash.arguments", self.pick(["1", "0,2"])))
                feats.add("consumer-method-hash-arguments")
        else:
            if self.chance(0.3):
                params.append(("weight", str(self.pick([1, 100, 300]))))
                feats.add("consumer-weight")
            if self.chance(0.2):
                m = self.pick(method_pool)
                params.append((f"{m}.weight", str(self.pick([2, 400]))))
                feats.add("consumer-method-weight")
            if self.chance(0.2):
                params.append(("warmup", str(self.pick([1000, 60000, 1200000]))))
                feats.add("consumer-warmup")
            if self.chance(0.3):
                params.append(("timestamp", str(self.NOW - 10)))
                feats.add("consumer-timestamp")
        if self.chance(0.5):
            params.append(("methods", ",".join(self.some(LISTED_METHODS, 1, 3))))
            feats.add("consumer-methods-list")
        return f"consumer://10.20.1.5/{SERVICE}?" + "&".join(f"{k}={v}" for k, v in params)

    def rr_case(self, i):
        feats = set()
        n = self.r.randint(1, 6)
        method = self.pick(METHODS + [None])
        provs = []
        for j in range(n):
            provs.append(self.lb_provider(feats, j, self.weight_params(feats, METHODS)))
        if n > 1 and self.chance(0.04):
            provs = [re.sub(r"([?&])weight=-?[0-9]+", r"\1weight=0", p) for p in provs]
            provs = [p if "weight=0" in p else p + "&weight=0" for p in provs]
            feats.add("all-zero-weights")
        if n > 1 and self.chance(0.05):
            # same identity string (host:port/path) as an earlier provider, other parameters
            base = provs[0].split("?")[0]
            provs[-1] = base + "?" + provs[-1].split("?")[1]
            feats.add("duplicate-identity")
        consumer = self.lb_consumer(feats, METHODS)
        count = self.r.randint(1, 40)
        java = {"kind": "select", "lb": "roundrobin", "providers": provs, "consumer": consumer,
                "method": lb_method(method, feats), "argSets": [[]], "count": count, "now": self.NOW}
        argv = ["select", "--json", "--loadbalance=roundrobin", f"--count={count}", f"--now={self.NOW}"] + self.dubbo_argv()
        argv += [f"--provider={p}" for p in provs]
        if method is not None:
            argv.append(f"--method={method}")
        if consumer:
            argv.append(f"--consumer={consumer}")
        return {"id": f"rr-{i:05d}", "component": "roundrobin", "java": java,
                "zs": {"argv": argv, "files": {}}, "features": sorted(feats)}

    CH_ARGS = ["user-1", "user-17", "Alice Smith", "42", "0", "", "x" * 40, "用户", "a,b", "null", "1.0"]

    def ch_case(self, i):
        feats = set()
        n = self.r.randint(1, 8)
        method = self.pick(METHODS + [None])
        provs = []
        for j in range(n):
            extra = []
            if j == 0 or self.chance(0.3):
                if self.chance(0.4):
                    extra.append(("hash.nodes", str(self.pick([4, 8, 16, 160, 320, 7, 1]))))
                    feats.add("hash-nodes")
                if self.chance(0.4):
                    extra.append(("hash.arguments", self.pick(["0", "1", "0,1", "1,0", "2", "0,5", "0, 1", "1,,0", "-1", "0,0"])))
                    feats.add("hash-arguments")
                if self.chance(0.15):
                    m = self.pick(METHODS)
                    extra.append((f"{m}.hash.arguments", self.pick(["1", "0,1"])))
                    feats.add("method-hash-arguments")
            if self.chance(0.3):
                extra.append(("weight", str(self.pick([1, 100, 500]))))
            provs.append(self.lb_provider(feats, j + self.r.randint(0, 400), extra))
        consumer = self.lb_consumer(feats, METHODS, for_hash=True)
        sets = []
        for _ in range(self.r.randint(1, 25)):
            sets.append([self.pick(self.CH_ARGS) for _ in range(self.r.randint(0, 3))])
        for s in sets:
            for a in s:
                if any(ord(ch) > 127 for ch in a):
                    feats.add("non-ascii-arg")
        java = {"kind": "select", "lb": "consistenthash", "providers": provs, "consumer": consumer,
                "method": lb_method(method, feats), "argSets": sets, "count": len(sets), "now": None}
        argv = ["select", "--json", "--loadbalance=consistenthash", "--args-file={{args.txt}}"] + self.dubbo_argv()
        argv += [f"--provider={p}" for p in provs]
        if method is not None:
            argv.append(f"--method={method}")
        if consumer:
            argv.append(f"--consumer={consumer}")
        args_txt = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sets)
        return {"id": f"ch-{i:05d}", "component": "consistenthash", "java": java,
                "zs": {"argv": argv, "files": {"args.txt": args_txt}}, "features": sorted(feats)}

    WEIGHTS = [1, 2, 3, 7, 10, 26, 50, 99, 100, 101, 333, 1000, 65536, 2147483647]
    WARMUPS = [1, 2, 3, 1000, 59999, 600000, 600001, 10_000_000, 2147483647, 0, -1]

    def weight_case(self, i):
        """getWeight of up to 20 providers: a warmup grid and parameter precedence."""
        feats = set()
        method = self.pick(METHODS + [None])
        provs = []
        grid = []
        grid_mode = self.chance(0.5)
        n = self.r.randint(1, 20)
        for j in range(n):
            extra = []
            if grid_mode:
                feats.add("warmup-grid")
                wt = self.pick(self.WEIGHTS)
                wu = self.pick(self.WARMUPS)
                up = self.pick(["0", "1", "2", "w-1", "w/2", "w/3", "rand", "w", "w+1", "neg", "zero-ts", "big"])
                if up == "zero-ts":
                    ts = 0
                elif up == "neg":
                    ts = self.NOW + self.r.randint(1, 5000)
                elif up == "big":
                    ts = self.NOW - self.r.randint(2**31, 2**33)
                else:
                    w = max(wu, 1)
                    u = {"0": 0, "1": 1, "2": 2, "w-1": w - 1, "w/2": w // 2, "w/3": w // 3,
                         "rand": self.r.randint(0, w), "w": w, "w+1": w + 1}[up]
                    ts = self.NOW - u
                    if 0 < u < wu:
                        grid.append([u, wu, wt])
                extra = [("weight", str(wt)), ("warmup", str(wu)), ("timestamp", str(ts))]
            else:
                feats.add("precedence")
                extra = self.weight_params(feats, METHODS)
            provs.append(self.lb_provider(feats, j, extra))
        consumer = None if grid_mode else self.lb_consumer(feats, METHODS)
        java = {"kind": "weight", "providers": provs, "consumer": consumer, "method": lb_method(method, feats),
                "args": [], "now": self.NOW, "grid": grid}
        argv = ["select", "--loadbalance=random", "--count=1", f"--now={self.NOW}"] + self.dubbo_argv()
        argv += [f"--provider={p}" for p in provs]
        if method is not None:
            argv.append(f"--method={method}")
        if consumer:
            argv.append(f"--consumer={consumer}")
        return {"id": f"weight-{i:05d}", "component": "warmup-weight" if grid_mode else "weight-precedence",
                "java": java, "zs": {"argv": argv, "files": {}, "text": True}, "features": sorted(feats)}


def lb_method(method, feats):
    """zonesim select without --method calls with the empty method name; Dubbo's balancers need a
    name (a null one throws NullPointerException in getMethodParameter), so Java gets "" too."""
    if method is None:
        feats.add("no-method")
        return ""
    return method


def mutate(c):
    """Changes zonesim's input of a case a little: --force flipped, force: in rule files flipped, the
    requested tag changed, the clock moved by 45 s, one hash argument changed."""
    argv = c["zs"]["argv"]
    files = c["zs"]["files"]
    comp = c["component"]
    if comp in ("condition-url",):
        if "--force" in argv:
            argv.remove("--force")
        else:
            argv.append("--force")
    elif comp.startswith("condition-") or comp == "tag-rule":
        name = "condition.yaml" if "condition.yaml" in files else "tag.yaml"
        if name in files:
            t = files[name]
            t2 = t.replace("force: true", "force: @").replace("force: false", "force: true").replace("force: @", "force: false")
            files[name] = t2 if t2 != t else t.replace("conditions:", "force: true\nconditions:").replace("tags:", "force: true\ntags:")
        elif comp == "condition-curl":
            argv[:] = [x + "&force=true" if x.startswith("--condition=") else x for x in argv]
    elif comp == "tag-static":
        argv[:] = [x for x in argv if not x.startswith("--attachment=dubbo.tag=")] + ["--attachment=dubbo.tag=gray"]
    elif comp in ("roundrobin", "warmup-weight", "weight-precedence"):
        argv[:] = [f"--now={c['java']['now'] + 45000}" if x.startswith("--now=") else x for x in argv]
    elif comp == "consistenthash":
        files["args.txt"] = files["args.txt"].replace("user-1", "user-2").replace("42", "43").replace("[]", '["k"]')


def hostport(url):
    """host[:port] of a provider URL (decoded, without user info)."""
    hp = unquote(url).split("/")[2]
    return hp.split("@")[-1]


def unquote(url):
    from urllib.parse import unquote as uq
    return uq(url) if "://" not in url else url


def param_of(url, key):
    q = url.split("?", 1)[1] if "?" in url else ""
    for kv in q.split("&"):
        if kv.startswith(key + "="):
            return kv[len(key) + 1:]
    return ""


def yaml_str(s):
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def url_encode(s):
    from urllib.parse import quote
    return quote(s, safe="")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--route", type=int, default=3000)
    ap.add_argument("--tag", type=int, default=1500)
    ap.add_argument("--rr", type=int, default=300)
    ap.add_argument("--ch", type=int, default=300)
    ap.add_argument("--weight", type=int, default=400)
    ap.add_argument("--profile", choices=["3.3", "2.7"], default="3.3",
                    help="2.7: cases for the Dubbo 2.7.23 driver (Driver27) and zonesim --dubbo 2.7")
    ap.add_argument("--mutate", action="store_true",
                    help="self-check: perturb the zonesim side of every case (not Dubbo's); most should then disagree")
    a = ap.parse_args()
    g = Gen(a.seed, a.profile)
    out = []
    out += [g.route_case(i) for i in range(a.route)]
    out += [g.tag_case(i) for i in range(a.tag)]
    out += [g.rr_case(i) for i in range(a.rr)]
    out += [g.ch_case(i) for i in range(a.ch)]
    out += [g.weight_case(i) for i in range(a.weight)]
    for c in out:
        c["java"]["id"] = c["id"]
        if a.mutate:
            mutate(c)
        print(json.dumps(c, ensure_ascii=False))


if __name__ == "__main__":
    main()
