package realdubbo;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What both drivers (Driver for 3.3, Driver27 for 2.7.23) share: the case loop (one JSON case per line
 * on stdin, one JSON answer per line on stdout, same order and "id"), the capture of Dubbo's SEVERE log
 * lines per case ("dubboLog"), JSON field readers, and the clock shift of provider timestamps. Nothing
 * here touches Dubbo's routing or balancing.
 */
final class Cases {
    private static final Gson GSON = new Gson();
    private static final Pattern TIMESTAMP = Pattern.compile("([?&])timestamp=(-?[0-9]+)");

    /**
     * Dubbo reports a rule it cannot use only in its log (the listenable routers and the tag router catch
     * the parse error). The distinct SEVERE messages of each case are answered as "dubboLog", so the
     * comparison can tell "Dubbo ignored an unparsable rule" from "Dubbo applied it".
     */
    static final Set<String> LOG = new LinkedHashSet<>();

    interface Kind {
        void run(JsonObject c, JsonObject answer) throws Exception;
    }

    private Cases() {}

    /** Runs every case through `route`, `select` or `weight`; call after Dubbo's logging is set up. */
    static void serve(Kind route, Kind select, Kind weight) throws Exception {
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
                        route.run(c, answer);
                        break;
                    case "select":
                        select.run(c, answer);
                        break;
                    case "weight":
                        weight.run(c, answer);
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

    static String str(JsonObject c, String k) {
        JsonElement e = c.get(k);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }

    static List<String> strList(JsonObject c, String k) {
        List<String> l = new ArrayList<>();
        JsonElement e = c.get(k);
        if (e == null || e.isJsonNull()) return l;
        for (JsonElement x : e.getAsJsonArray()) l.add(x.getAsString());
        return l;
    }

    /** The case's argument lists ("argSets"), one empty list when none. */
    static List<List<String>> argSets(JsonObject c) {
        List<List<String>> argSets = new ArrayList<>();
        for (JsonElement e : c.getAsJsonArray("argSets")) {
            List<String> s = new ArrayList<>();
            for (JsonElement x : e.getAsJsonArray()) s.add(x.getAsString());
            argSets.add(s);
        }
        if (argSets.isEmpty()) argSets.add(new ArrayList<>());
        return argSets;
    }

    /** A provider URL with its timestamps moved by shift ms (only timestamps > 0: 0 means none). */
    static String shifted(String p, long shift) {
        if (shift == 0) return p;
        Matcher m = TIMESTAMP.matcher(p);
        StringBuffer sb = new StringBuffer();
        while (m.find()) {
            long t = Long.parseLong(m.group(2));
            m.appendReplacement(sb, m.group(1) + "timestamp=" + (t > 0 ? t + shift : t));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    interface Attempt {
        JsonArray run(long shift);
    }

    /**
     * getWeight reads System.currentTimeMillis(). The case gives the clock "now" (zonesim's --now); the
     * attempt moves every provider timestamp by (wall clock - now) so that uptimes are exactly the
     * case's, and is retried until it ran inside one millisecond tick.
     */
    static JsonArray atClock(JsonObject c, Attempt attempt) {
        if (!c.has("now") || c.get("now").isJsonNull()) return attempt.run(0);
        long now = c.get("now").getAsLong();
        for (int tries = 0; tries < 1000; tries++) {
            long base = System.currentTimeMillis();
            JsonArray r = attempt.run(base - now);
            if (System.currentTimeMillis() == base) return r;
        }
        throw new IllegalStateException("could not finish inside one millisecond");
    }
}
