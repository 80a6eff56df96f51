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

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    public static void main(String[] args) throws Exception {
        // Dubbo's JdkLoggerAdapter reads logging.properties (LogManager.readConfiguration) when the first
        // logger is made, which would drop a handler added before: make one first.
        org.apache.dubbo.common.logger.LoggerFactory.getLogger(Driver27.class);
        Cases.serve(Driver27::route, Driver27::select, Driver27::weight);
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
        String method = Cases.str(c, "method");
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
        URL consumer = URL.valueOf(Cases.str(c, "consumer"));
        List<String> raw = Cases.strList(c, "providers");
        List<Invoker<Object>> list = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) list.add(new FakeInvoker(merged(rawProvider(raw.get(i)), consumer), i));

        JsonObject cond = c.has("condition") && c.get("condition").isJsonObject() ? c.getAsJsonObject("condition") : null;
        JsonObject tag = c.has("tag") && c.get("tag").isJsonObject() ? c.getAsJsonObject("tag") : null;
        if (cond != null && "yaml".equals(Cases.str(cond, "form"))) {
            String key = Cases.str(cond, "key");
            if (key == null) key = DynamicConfiguration.getRuleKey(consumer);
            MemoryRuleRepository.RULES.put(key + ".condition-router", Cases.str(cond, "text"));
        }
        if (tag != null && Cases.str(tag, "key") != null) {
            MemoryRuleRepository.RULES.put(Cases.str(tag, "key") + ".tag-router", Cases.str(tag, "text"));
        }
        // The listenable routers read their rule when they are created (ListenableRouter.init).
        List<Router> routers = new ArrayList<>();
        routers.add(new MockInvokersSelector());
        TagRouter tagRouter = new TagRouter(consumer);
        routers.add(tagRouter);
        routers.add(new ServiceRouter(consumer));
        routers.add(new AppRouter(consumer));
        if (cond != null && "url".equals(Cases.str(cond, "form"))) {
            routers.add(new ConditionRouter(Cases.str(cond, "text"), cond.get("force").getAsBoolean(), true));
        } else if (cond != null && "curl".equals(Cases.str(cond, "form"))) {
            routers.add(new ConditionRouter(URL.valueOf(Cases.str(cond, "text"))));
        }
        // RouterChain.setInvokers: every router is notified of the list (TagRouter reads its rule here).
        for (Router r : routers) r.notify(list);
        if (tag != null && Cases.str(tag, "key") == null) {
            tagRouter.process(new ConfigChangedEvent("realdubbo.tag-router", DynamicConfiguration.DEFAULT_GROUP, Cases.str(tag, "text")));
        }
        Invocation invocation = invocation(c, consumer, Cases.strList(c, "args"));
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
            String p = Cases.shifted(raw.get(i), shift);
            URL url = consumer == null ? URL.valueOf(p) : merged(URL.valueOf(p), consumer);
            list.add(new FakeInvoker(url, i));
        }
        return list;
    }

    private static void select(JsonObject c, JsonObject answer) {
        String consumerStr = Cases.str(c, "consumer");
        URL consumer = consumerStr == null ? null : URL.valueOf(consumerStr);
        List<String> raw = Cases.strList(c, "providers");
        String lbName = Cases.str(c, "lb");
        int count = c.get("count").getAsInt();
        List<List<String>> argSets = Cases.argSets(c);
        URL lbUrl = consumer != null ? consumer : URL.valueOf("consumer://127.0.0.1/" + URL.valueOf(raw.get(0)).getServiceInterface());
        JsonArray picks = Cases.atClock(c, shift -> {
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
        String consumerStr = Cases.str(c, "consumer");
        URL consumer = consumerStr == null ? null : URL.valueOf(consumerStr);
        List<String> raw = Cases.strList(c, "providers");
        WeightProbe probe = new WeightProbe();
        JsonArray weights = Cases.atClock(c, shift -> {
            List<Invoker<Object>> invokers = lbInvokers(raw, consumer, shift);
            Invocation inv = invocation(c, consumer, Cases.strList(c, "args"));
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
