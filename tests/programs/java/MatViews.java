/*
 * MatViews - a JVM heap whose shape fixes what Eclipse MAT's one-click
 * queries must answer, for tests/mount/t_mat.sh (biggest objects, top
 * consumers, dominators by class, merged paths, suspects).
 *
 * Known contents (the test relies on these numbers):
 *   BIG          a byte[47185920] (45 MiB) held only by the static field
 *                MatViews.BIG: the biggest object, and a class that retains
 *                45 MiB through its statics;
 *   SECOND       an int[2000000], the second biggest object;
 *   TEXT         a String of 600000 'q' (its byte[600000] the third);
 *   40000 MatViews$Session, reached by three paths:
 *                20000 through the ArrayList in LIST,
 *                15000 as the values of the HashMap in MAP,
 *                 5000 through a chain of MatViews$Link from CHAIN
 *                (Link.session, the next Link by Link.next);
 *   HOLDER       an Object[100] of MatViews$Item, each holding its own
 *                byte[1000] (Item.data): what the array dominates, by class;
 *   MANY         an Object[120000] of MatViews$Tiny: more instances than
 *                classes/NAME/paths follows.
 * Everything is built in build(), so no stack frame holds any of it; after
 * printing READY the program allocates nothing and sleeps (it exits by
 * itself after ten minutes).
 *
 * Compile with: javac -d DIR MatViews.java
 */
import java.util.ArrayList;
import java.util.HashMap;

public class MatViews {
    static final class Session {
        int id;
    }

    static final class Link {
        Session session;
        Link next;
    }

    static final class Item {
        byte[] data;
    }

    static final class Tiny {
    }

    static byte[] BIG;
    static int[] SECOND;
    static String TEXT;
    static ArrayList<Session> LIST;
    static HashMap<Integer, Session> MAP;
    static Link CHAIN;
    static Object[] HOLDER;
    static Object[] MANY;

    static void build() {
        BIG = new byte[45 << 20];
        SECOND = new int[2_000_000];
        TEXT = "q".repeat(600_000);
        int id = 0;
        LIST = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            Session s = new Session();
            s.id = id++;
            LIST.add(s);
        }
        MAP = new HashMap<>();
        for (int i = 0; i < 15_000; i++) {
            Session s = new Session();
            s.id = id++;
            MAP.put(s.id, s);
        }
        Link head = null;
        for (int i = 0; i < 5_000; i++) {
            Link l = new Link();
            l.session = new Session();
            l.session.id = id++;
            l.next = head;
            head = l;
        }
        CHAIN = head;
        HOLDER = new Object[100];
        for (int i = 0; i < HOLDER.length; i++) {
            Item it = new Item();
            it.data = new byte[1000];
            HOLDER[i] = it;
        }
        MANY = new Object[120_000];
        for (int i = 0; i < MANY.length; i++)
            MANY[i] = new Tiny();
    }

    public static void main(String[] args) throws Exception {
        build();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
