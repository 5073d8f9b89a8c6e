// tags: gc string
// release: 13
// String allocation churn: strings built by concatenation, StringBuilder and substring in a
// loop, most dropped at once, a rotating window of 512 kept, and a HashMap<String, String>
// live set rewritten continuously; checksums of the survivors are compared with running totals.
import java.util.HashMap;
import java.util.Map;

public class StringChurn {
    public static void main(String[] args) {
        String[] window = new String[512];
        long windowHash = 0;
        long produced = 0;
        for (int i = 0; i < 60000; i++) {
            String s = "k" + i + ":" + (i * 31 % 977);
            StringBuilder sb = new StringBuilder(s);
            sb.append('/').append(i % 7).reverse();
            String t = sb.toString();
            String sub = t.substring(1, t.length() - 1);
            produced += s.length() + t.length() + sub.length();
            int slot = i % window.length;
            if (window[slot] != null) {
                windowHash -= window[slot].hashCode();
            }
            window[slot] = (i % 3 == 0) ? sub : s;
            windowHash += window[slot].hashCode();
        }
        long recomputed = 0;
        for (String w : window) {
            recomputed += w.hashCode();
        }
        System.out.println("produced chars " + produced + ", window hash " + windowHash + " consistent "
            + (recomputed == windowHash));
        Map<String, String> live = new HashMap<>();
        long seed = 7;
        for (int i = 0; i < 40000; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            int k = (int) ((seed >>> 40) % 2000);
            String key = "key" + k;
            String value = key + "=" + i;
            live.put(key, value);
            if (i % 5 == 0) {
                live.remove("key" + ((k + 1000) % 2000));
            }
        }
        long valueChars = 0;
        int consistent = 0;
        for (Map.Entry<String, String> e : live.entrySet()) {
            valueChars += e.getValue().length();
            if (e.getValue().startsWith(e.getKey() + "=")) {
                consistent++;
            }
        }
        System.out.println("live map " + live.size() + " entries, value chars " + valueChars + ", consistent " + consistent);
        String joined = "";
        for (int i = 0; i < 300; i++) {
            joined = joined + i % 10;
        }
        System.out.println("quadratic concat " + joined.length() + " " + joined.hashCode());
    }
}
