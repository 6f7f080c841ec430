// Arena starter bot, JSON-lines protocol (docs/bots.md), standard library only.
// Build:  javac -d /tmp/botwars-starter-java examples/starters/java/Bot.java
// Check:  botwars bot check "cmd:java -Xmx64m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m -XX:CompressedClassSpaceSize=32m -cp /tmp/botwars-starter-java Bot" --game arena
// (the flags keep the JVM inside the arena's 512 MiB address-space limit)
// Each line on stdin is one view (arena P11); answer one line of orders (P12) and flush.
// Every robot of yours walks towards the centre and defends there; an adjacent enemy is attacked.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Bot {
    static final int CX = 8, CY = 8;
    static final Pattern OBJ = Pattern.compile("\\{[^{}]*\\}");
    static final String[] NAMES = {"N", "E", "S", "W"};
    static final int[] DX = {0, 1, 0, -1}, DY = {1, 0, -1, 0};

    static Integer intAfter(String obj, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\\s*(-?\\d+)").matcher(obj);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {  // null when the engine closes stdin: then exit
            int at = line.indexOf("\"robots\":[");
            String list = at < 0 ? "" : line.substring(at, line.indexOf(']', at) + 1);
            List<int[]> own = new ArrayList<>();
            Set<String> foes = new HashSet<>();
            Matcher m = OBJ.matcher(list);
            while (m.find()) {
                String obj = m.group();
                Integer x = intAfter(obj, "x"), y = intAfter(obj, "y");
                if (x == null || y == null) continue;
                if (obj.contains("\"side\":\"F\"")) own.add(new int[]{x, y});
                else foes.add(x + ":" + y);
            }
            StringBuilder out = new StringBuilder("{\"orders\":[");
            for (int i = 0; i < own.size(); i++) {
                int x = own.get(i)[0], y = own.get(i)[1];
                if (i > 0) out.append(',');
                out.append("{\"x\":").append(x).append(",\"y\":").append(y);
                int hit = -1;
                for (int d = 0; d < 4 && hit < 0; d++) if (foes.contains((x + DX[d]) + ":" + (y + DY[d]))) hit = d;
                if (hit >= 0) out.append(",\"action\":\"A\",\"dir\":\"").append(NAMES[hit]).append("\"}");
                else if (x == CX && y == CY) out.append(",\"action\":\"D\"}");
                else if (Math.abs(CX - x) >= Math.abs(CY - y)) out.append(",\"action\":\"M\",\"dir\":\"").append(CX > x ? "E" : "W").append("\"}");
                else out.append(",\"action\":\"M\",\"dir\":\"").append(CY > y ? "N" : "S").append("\"}");
            }
            out.append("]}");
            System.out.println(out);
            System.out.flush();
        }
    }
}
