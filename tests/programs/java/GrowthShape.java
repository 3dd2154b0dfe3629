/*
 * GrowthShape - a JVM heap that grows by known amounts between two dumps,
 * for tests/mount/t_growth.sh (heapfs BEFORE AFTER MNT: snapshots/2/growth).
 *
 * After printing READY the program holds:
 *   Steady      100 instances (unchanged: growth leaves it out)
 *   Grower      200 instances
 *   Leaver      300 instances
 *   Strings     "before-marker-0" .. "before-marker-9"
 * and waits for a line "grow" on stdin.  Then it adds 1000 Grower, makes
 * 500 Newcomer (a class first loaded now), drops every Leaver (a live-only
 * dump then has none), adds the strings "after-marker-0" .. "after-marker-9",
 * and prints GROWN.  It allocates nothing else, and exits by itself after
 * ten minutes in case nobody kills it.
 *
 * Shallow sizes with compressed oops and class pointers (the JVM's default
 * below 32 GiB): Steady, Leaver 16 bytes (12 + one int); Grower 16 (12 +
 * int); Newcomer 24 (12 + long, aligned to 8).
 *
 * Compile with: javac -d DIR GrowthShape.java
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;

class Steady {
    int id;

    Steady(int id) {
        this.id = id;
    }
}

class Grower {
    int id;

    Grower(int id) {
        this.id = id;
    }
}

class Leaver {
    int id;

    Leaver(int id) {
        this.id = id;
    }
}

class Newcomer {
    long id;

    Newcomer(long id) {
        this.id = id;
    }
}

public class GrowthShape {
    static Steady[] steady = new Steady[100];
    static Grower[] growers = new Grower[1200];
    static Leaver[] leavers = new Leaver[300];
    static Object[] newcomers;
    static String[] strings = new String[20];

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < steady.length; i++)
            steady[i] = new Steady(i);
        for (int i = 0; i < 200; i++)
            growers[i] = new Grower(i);
        for (int i = 0; i < leavers.length; i++)
            leavers[i] = new Leaver(i);
        for (int i = 0; i < 10; i++)
            strings[i] = new StringBuilder("before-marker-").append(i).toString();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null && !line.equals("grow")) {
        }
        for (int i = 200; i < 1200; i++)
            growers[i] = new Grower(i);
        Object[] made = new Object[500];
        for (int i = 0; i < made.length; i++)
            made[i] = new Newcomer(i);
        newcomers = made;
        leavers = null;
        for (int i = 0; i < 10; i++)
            strings[10 + i] = new StringBuilder("after-marker-").append(i).toString();
        System.out.println("GROWN");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
