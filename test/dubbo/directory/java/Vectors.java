import java.util.*;
import java.util.concurrent.ConcurrentHashMap;

public class Vectors {
    static String q(String s) { return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }
    static String list(Collection<?> c) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (Object o : c) j.add(o instanceof String ? q((String) o) : String.valueOf(o));
        return j.toString();
    }
    // Dubbo ServiceDiscoveryRegistryDirectory.ProtocolServiceKeyWithAddress#hashCode, spelled out.
    static final class Key {
        final String iface, version, group, protocol, address;
        Key(String i, String v, String g, String p, String a) { iface = i; version = v; group = g; protocol = p; address = a; }
        public int hashCode() { return Objects.hash(Objects.hash(Objects.hash(iface, group, version), protocol), address); }
        public boolean equals(Object o) { return o instanceof Key && ((Key) o).address.equals(address) && Objects.equals(((Key) o).group, group); }
    }
    public static void main(String[] a) {
        System.out.println("{");
        // String.hashCode
        String[] strs = {"", "a", "b", "gray", "com.example.PriceService", "10.0.0.1:20880", "zone-b,zone-a", "\u00e9t\u00e9", "\ud83d\ude00x"};
        StringJoiner sh = new StringJoiner(",", "[", "]");
        for (String s : strs) sh.add("[" + q(s) + "," + s.hashCode() + "]");
        System.out.println("\"stringHash\":" + sh + ",");
        // HashMap<String,...> default constructor, insertion in the given order
        String[][] groupSets = {
            {"a", "b"}, {"b", "a"}, {"blue", "green"}, {"green", "blue"}, {"gray", "blue", "canary", "stable"},
            {"g0","g1","g2","g3","g4","g5","g6","g7","g8","g9","g10","g11","g12","g13","g14","g15","g16","g17","g18","g19"},
        };
        StringJoiner hm = new StringJoiner(",", "[", "]");
        for (String[] set : groupSets) {
            Map<String, Integer> m = new HashMap<>();
            for (String s : set) m.computeIfAbsent(s, k -> 0);
            Map<String, Integer> p = new HashMap<>();
            for (String s : set) p.put(s, 0);
            hm.add("{\"in\":" + list(Arrays.asList(set)) + ",\"computeIfAbsent\":" + list(m.keySet()) + ",\"put\":" + list(p.keySet()) + "}");
        }
        System.out.println("\"hashMap\":" + hm + ",");
        // HashMap<Integer,...> with 9 keys in one bin: resize instead of treeify below 64
        StringJoiner hmi = new StringJoiner(",", "[", "]");
        int[][] intSets = { {0,16,32,48,64,80,96,112,128,1,2}, {5,21,37,53,69,85,101,117,133,149,165,181}, {1,2,3,4,5,6,7,8,9,10,11,12,13}, {0,64,128,192,256,320,384,448,512,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40} };
        for (int[] set : intSets) {
            Map<Integer, Integer> m = new HashMap<>();
            List<Integer> in = new ArrayList<>();
            Map<Integer, Integer> c = new HashMap<>();
            for (int k : set) { m.put(k, 0); c.computeIfAbsent(k, x -> 0); in.add(k); }
            hmi.add("{\"in\":" + list(in) + ",\"put\":" + list(m.keySet()) + ",\"computeIfAbsent\":" + list(c.keySet()) + "}");
        }
        System.out.println("\"hashMapInt\":" + hmi + ",");
        // ConcurrentHashMap<>((int)(n / 0.75f + 1)), as RegistryDirectory/ServiceDiscoveryRegistryDirectory#toInvokers
        StringJoiner chm = new StringJoiner(",", "[", "]");
        int[] sizes = {1, 2, 3, 5, 8, 10, 16, 17, 33, 70};
        for (int n : sizes) {
            for (String grp : new String[] {null, "a", "rev"}) {
                Map<Key, Integer> m = new ConcurrentHashMap<>((int) (n / 0.75f + 1));
                List<String> in = new ArrayList<>();
                for (int i = 0; i < n; i++) in.add("10.0." + (i / 200) + "." + (1 + i % 200) + ":20880");
                if ("rev".equals(grp)) { Collections.reverse(in); grp = null; }
                for (String addr : in) m.put(new Key("com.example.PriceService", null, grp, "dubbo", addr), 0);
                List<String> out = new ArrayList<>();
                for (Key k : m.keySet()) out.add(k.address);
                chm.add("{\"group\":" + (grp == null ? "null" : q(grp)) + ",\"in\":" + list(in) + ",\"out\":" + list(out) + "}");
            }
        }
        System.out.println("\"chmAddresses\":" + chm + ",");
        // ConcurrentHashMap<Integer,...>: collisions forcing tryPresize (table < 64) and a TreeBin (table >= 64)
        StringJoiner chmi = new StringJoiner(",", "[", "]");
        Object[][] intCases = {
            {5, new int[] {0,8,16,24,32,40,48,56,64,72,3,11}},
            {5, new int[] {7,15,23,31,39,47,55,63,71,79,87,1,2}},
            {50, new int[] {0,128,256,384,512,640,768,896,1024,1152,1280,5}},
        };
        for (Object[] c : intCases) {
            int cap = (Integer) c[0];
            Map<Integer, Integer> m = new ConcurrentHashMap<>(cap);
            List<Integer> in = new ArrayList<>();
            for (int k : (int[]) c[1]) { m.put(k, 0); in.add(k); }
            chmi.add("{\"initialCapacity\":" + cap + ",\"in\":" + list(in) + ",\"out\":" + list(m.keySet()) + "}");
        }
        System.out.println("\"chmInt\":" + chmi);
        System.out.println("}");
    }
}
