package realdubbo;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.config.configcenter.ConfigChangedEvent;
import org.apache.dubbo.common.config.configcenter.DynamicConfiguration;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.cluster.Router;
import org.apache.dubbo.rpc.cluster.loadbalance.ConsistentHashLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.RoundRobinLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.WeightProbe;
import org.apache.dubbo.rpc.cluster.router.condition.ConditionRouter;
import org.apache.dubbo.rpc.cluster.router.condition.config.AppRouter;
import org.apache.dubbo.rpc.cluster.router.condition.config.ServiceRouter;
import org.apache.dubbo.rpc.cluster.router.mock.MockInvokersSelector;
import org.apache.dubbo.rpc.cluster.router.tag.TagRouter;
import org.apache.dubbo.rpc.cluster.support.ClusterUtils;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java side of the differential test against Dubbo 2.7.23 (tag dubbo-2.7.23). The same case
 * format and answers as Driver.java (the 3.3 driver); the 2.7 classes differ:
 *
 *   route  - MockInvokersSelector (-100), TagRouter (100), ServiceRouter (140), AppRouter (150) and, for
 *            URL-form rules, a ConditionRouter (last, as the 3.3 driver places it), applied in sequence as
 *            2.7's RouterChain.route does (no fail-fast; an empty list stays empty). 2.7 has no
 *            ProviderAppStateRouter and no multi-destination rules. The invokers' URLs are what 2.7's
 *            RegistryDirectory.mergeUrl makes of each provider URL: ClusterUtils.mergeUrl with the
 *            consumer's parameters, then check=false (and the interface as path when a dubbo:// URL has none).
 *   select - a fresh RoundRobinLoadBalance / ConsistentHashLoadBalance on those merged URLs when the case
 *            has a consumer, else on the provider URLs as given.
 *   weight - AbstractLoadBalance.getWeight of each provider at the clock "now" (the same WeightProbe).
 */
public class Driver27 {
    private static final Gson GSON = new Gson();
    private static final Pattern TIMESTAMP = Pattern.compile("([?&])timestamp=(-?[0-9]+)");
    static final java.util.Set<String> LOG = new java.util.LinkedHashSet<>();

    public static void main(String[] args) throws Exception {
        // Dubbo's JdkLoggerAdapter reads logging.properties (LogManager.readConfiguration) when the first
        // logger is made, which would drop a handler added before: make one first.
        org.apache.dubbo.common.logger.LoggerFactory.getLogger(Driver27.class);
        java.util.logging.Logger.getLogger("").addHandler(new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue() && r.getMessage() != null) {
                    String m = r.getMessage().replace(" [DUBBO] ", "").replace("[DUBBO] ", "").trim();
                    int cut = m.indexOf(", dubbo version");
                    LOG.add((cut > 0 ? m.substring(0, cut) : m).substring(0, Math.min(160, cut > 0 ? cut : m.length())));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonObject c = GSON.fromJson(line, JsonObject.class);
            JsonObject answer = new JsonObject();
            answer.addProperty("id", c.get("id").getAsString());
            LOG.clear();
            try {
                switch (c.get("kind").getAsString()) {
                    case "route":
                        route(c, answer);
                        break;
                    case "select":
                        select(c, answer);
                        break;
                    case "weight":
                        weight(c, answer);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown kind");
                }
            } catch (Throwable t) {
                answer.addProperty("error", t.getClass().getName() + ": " + t.getMessage());
            }
            if (!LOG.isEmpty()) {
                JsonArray l = new JsonArray();
                LOG.forEach(l::add);
                answer.add("dubboLog", l);
            }
            out.println(GSON.toJson(answer));
        }
        out.flush();
    }

    private static String str(JsonObject c, String k) {
        JsonElement e = c.get(k);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }

    private static List<String> strList(JsonObject c, String k) {
        List<String> l = new ArrayList<>();
        JsonElement e = c.get(k);
        if (e == null || e.isJsonNull()) return l;
        for (JsonElement x : e.getAsJsonArray()) l.add(x.getAsString());
        return l;
    }

    /** A provider as a 2.7 registry hands it over: ZooKeeper's URL-encoded form decoded (ZookeeperRegistry.toUrlsWithoutEmpty). */
    static URL rawProvider(String raw) {
        return URL.valueOf(raw.contains("://") ? raw : URL.decode(raw));
    }

    /**
     * RegistryDirectory.mergeUrl (2.7.23 RegistryDirectory.java:352-381, copied: the directory needs a
     * running registry): ClusterUtils.mergeUrl with the consumer's parameters (its queryMap), no
     * configurators, check=false, and the interface as path for a dubbo:// URL without one.
     */
    static URL merged(URL provider, URL consumer) {
        URL url = ClusterUtils.mergeUrl(provider, new HashMap<>(consumer.getParameters()));
        url = url.addParameter("check", String.valueOf(false));
        if ((url.getPath() == null || url.getPath().length() == 0) && "dubbo".equals(url.getProtocol())) {
            String path = consumer.getParameter("interface");
            if (path != null) {
                int i = path.indexOf('/');
                if (i >= 0) path = path.substring(i + 1);
                i = path.lastIndexOf(':');
                if (i >= 0) path = path.substring(0, i);
                url = url.setPath(path);
            }
        }
        return url;
    }

    static Invocation invocation(JsonObject c, URL consumer, List<String> args) {
        String method = str(c, "method");
        Map<String, Object> attachments = new HashMap<>();
        JsonElement a = c.get("attachments");
        if (a != null && a.isJsonObject()) {
            for (Map.Entry<String, JsonElement> e : a.getAsJsonObject().entrySet()) attachments.put(e.getKey(), e.getValue().getAsString());
        }
        Class<?>[] types = new Class<?>[args.size()];
        java.util.Arrays.fill(types, String.class);
        return new RpcInvocation(method, consumer == null ? null : consumer.getServiceInterface(), null, types, args.toArray(new Object[0]), attachments);
    }

    private static void route(JsonObject c, JsonObject answer) {
        MemoryRuleRepository.RULES.clear();
        URL consumer = URL.valueOf(str(c, "consumer"));
        List<String> raw = strList(c, "providers");
        List<Invoker<Object>> list = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) list.add(new FakeInvoker(merged(rawProvider(raw.get(i)), consumer), i));

        JsonObject cond = c.has("condition") && c.get("condition").isJsonObject() ? c.getAsJsonObject("condition") : null;
        JsonObject tag = c.has("tag") && c.get("tag").isJsonObject() ? c.getAsJsonObject("tag") : null;
        if (cond != null && "yaml".equals(str(cond, "form"))) {
            String key = str(cond, "key");
            if (key == null) key = DynamicConfiguration.getRuleKey(consumer);
            MemoryRuleRepository.RULES.put(key + ".condition-router", str(cond, "text"));
        }
        if (tag != null && str(tag, "key") != null) {
            MemoryRuleRepository.RULES.put(str(tag, "key") + ".tag-router", str(tag, "text"));
        }
        // The listenable routers read their rule when they are created (ListenableRouter.init).
        List<Router> routers = new ArrayList<>();
        routers.add(new MockInvokersSelector());
        TagRouter tagRouter = new TagRouter(consumer);
        routers.add(tagRouter);
        routers.add(new ServiceRouter(consumer));
        routers.add(new AppRouter(consumer));
        if (cond != null && "url".equals(str(cond, "form"))) {
            routers.add(new ConditionRouter(str(cond, "text"), cond.get("force").getAsBoolean(), true));
        } else if (cond != null && "curl".equals(str(cond, "form"))) {
            routers.add(new ConditionRouter(URL.valueOf(str(cond, "text"))));
        }
        // RouterChain.setInvokers: every router is notified of the list (TagRouter reads its rule here).
        for (Router r : routers) r.notify(list);
        if (tag != null && str(tag, "key") == null) {
            tagRouter.process(new ConfigChangedEvent("realdubbo.tag-router", DynamicConfiguration.DEFAULT_GROUP, str(tag, "text")));
        }
        Invocation invocation = invocation(c, consumer, strList(c, "args"));
        List<Invoker<Object>> result = list;
        for (Router r : routers) result = r.route(result, consumer, invocation);
        JsonArray idx = new JsonArray();
        // MockInvokersSelector answers null when invocation.need.mock=true finds no mock:// provider; the
        // following routers pass the null on, and checkInvokers reads it as no provider.
        if (result != null) for (Invoker<Object> inv : result) idx.add(((FakeInvoker) inv).index);
        JsonArray all = new JsonArray();
        all.add(idx);
        answer.add("outcomes", all);
    }

    private static List<Invoker<Object>> lbInvokers(List<String> raw, URL consumer, long shift) {
        List<Invoker<Object>> list = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String p = raw.get(i);
            if (shift != 0) {
                Matcher m = TIMESTAMP.matcher(p);
                StringBuffer sb = new StringBuffer();
                while (m.find()) {
                    long t = Long.parseLong(m.group(2));
                    m.appendReplacement(sb, m.group(1) + "timestamp=" + (t > 0 ? t + shift : t));
                }
                m.appendTail(sb);
                p = sb.toString();
            }
            URL url = consumer == null ? URL.valueOf(p) : merged(URL.valueOf(p), consumer);
            list.add(new FakeInvoker(url, i));
        }
        return list;
    }

    interface Attempt {
        JsonArray run(long shift);
    }

    private static JsonArray atClock(JsonObject c, Attempt attempt) {
        if (!c.has("now") || c.get("now").isJsonNull()) return attempt.run(0);
        long now = c.get("now").getAsLong();
        for (int tries = 0; tries < 1000; tries++) {
            long base = System.currentTimeMillis();
            JsonArray r = attempt.run(base - now);
            if (System.currentTimeMillis() == base) return r;
        }
        throw new IllegalStateException("could not finish inside one millisecond");
    }

    private static void select(JsonObject c, JsonObject answer) {
        String consumerStr = str(c, "consumer");
        URL consumer = consumerStr == null ? null : URL.valueOf(consumerStr);
        List<String> raw = strList(c, "providers");
        String lbName = str(c, "lb");
        int count = c.get("count").getAsInt();
        List<List<String>> argSets = new ArrayList<>();
        for (JsonElement e : c.getAsJsonArray("argSets")) {
            List<String> s = new ArrayList<>();
            for (JsonElement x : e.getAsJsonArray()) s.add(x.getAsString());
            argSets.add(s);
        }
        if (argSets.isEmpty()) argSets.add(new ArrayList<>());
        URL lbUrl = consumer != null ? consumer : URL.valueOf("consumer://127.0.0.1/" + URL.valueOf(raw.get(0)).getServiceInterface());
        JsonArray picks = atClock(c, shift -> {
            List<Invoker<Object>> invokers = lbInvokers(raw, consumer, shift);
            org.apache.dubbo.rpc.cluster.LoadBalance lb = "roundrobin".equals(lbName) ? new RoundRobinLoadBalance() : new ConsistentHashLoadBalance();
            JsonArray p = new JsonArray();
            for (int n = 0; n < count; n++) {
                Invoker<Object> picked = lb.select(invokers, lbUrl, invocation(c, consumer, argSets.get(n % argSets.size())));
                p.add(picked.getUrl().getAddress());
            }
            return p;
        });
        answer.add("picks", picks);
    }

    private static void weight(JsonObject c, JsonObject answer) {
        String consumerStr = str(c, "consumer");
        URL consumer = consumerStr == null ? null : URL.valueOf(consumerStr);
        List<String> raw = strList(c, "providers");
        WeightProbe probe = new WeightProbe();
        JsonArray weights = atClock(c, shift -> {
            List<Invoker<Object>> invokers = lbInvokers(raw, consumer, shift);
            Invocation inv = invocation(c, consumer, strList(c, "args"));
            JsonArray w = new JsonArray();
            for (Invoker<Object> i : invokers) {
                try {
                    w.add(probe.weightOf(i, inv));
                } catch (RuntimeException e) {
                    w.add("error: " + e.getClass().getSimpleName());
                }
            }
            return w;
        });
        answer.add("weights", weights);
        if (c.has("grid")) {
            JsonArray g = new JsonArray();
            for (JsonElement e : c.getAsJsonArray("grid")) {
                JsonArray t = e.getAsJsonArray();
                g.add(WeightProbe.warmupWeight(t.get(0).getAsInt(), t.get(1).getAsInt(), t.get(2).getAsInt()));
            }
            answer.add("grid", g);
        }
    }
}
