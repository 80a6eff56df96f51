// Prints test/dubbo/loadbalance/warmup-weight.vectors.json: calculateWarmupWeight as Java evaluates it
// (int uptime, warmup, weight; float division) for random inputs, half of them where doing the outer
// division in double gives another weight. Run: java WarmupWeightVectors.java > ../warmup-weight.vectors.json
import java.util.*;
public class WarmupWeightVectors {
  // The expression of Dubbo AbstractLoadBalance.calculateWarmupWeight, typed as there (int, int, int).
  static int ww(int uptime, int warmup, int weight) { int w = (int) (uptime / ((float) warmup / weight)); return w < 1 ? 1 : Math.min(w, weight); }
  // The same with the outer division in double (zonesim before the fix).
  static int wwDouble(int uptime, int warmup, int weight) { int w = (int) (uptime / (double) ((float) warmup / weight)); return w < 1 ? 1 : Math.min(w, weight); }
  public static void main(String[] a) {
    Random r = new Random(42);
    int[] warmups = {1000, 10000, 60000, 600000, 700001, 3600000, 20000000};
    List<String> plain = new ArrayList<>(), differ = new ArrayList<>(); int small = 0, big = 0;
    for (int i = 0; i < 5000000 && (plain.size() < 150 || small < 100 || big < 50); i++) {
      int warmup = warmups[r.nextInt(warmups.length)];
      int weight = r.nextInt(5) == 0 ? 1 + r.nextInt(100000000) : 1 + r.nextInt(1000);
      int uptime = 1 + r.nextInt(warmup - 1);
      String c = "[" + uptime + "," + warmup + "," + weight + "," + ww(uptime, warmup, weight) + "]";
      if (ww(uptime, warmup, weight) != wwDouble(uptime, warmup, weight)) { if (weight <= 1000 ? small++ < 100 : big++ < 50) differ.add(c); }
      else if (plain.size() < 150) plain.add(c);
    }
    System.out.println("{\"sameInDouble\":[" + String.join(",", plain) + "],\n\"differInDouble\":[" + String.join(",", differ) + "]}");
  }
}
