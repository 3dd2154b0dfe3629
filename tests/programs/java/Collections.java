/*
 * Collections - a JVM heap whose collections, waste, class loaders and
 * thread locals are known, for tests/mount/t_collections*.sh.
 *
 * What the heap holds (static fields of Collections, so the test finds
 * each one's id in classes/Collections/statics):
 *   - collections of the JDK, with known contents: every one is printed at
 *     start as "coll FIELD SIZE CAPACITY" where CAPACITY is the length of
 *     its backing array as the JDK itself has it (read by reflection: run
 *     with --add-opens java.base/java.util=ALL-UNNAMED and
 *     java.base/java.util.concurrent), half of it for IdentityHashMap and
 *     Map.of's MapN (key and value alternate), SIZE for linked structures;
 *   - map entries: hashMap maps "k0".."k99" to Integer 1000 * i;
 *     arrayList holds Long 1000000 + i, i = 0..10;
 *   - waste: five equal int[100] (dupInts), three equal byte[1000]
 *     (dupBytes), a long[10000] of zeros (zeros), 1000 distinct Longs in
 *     boxes, each printed as "dup", "zeros" and "boxes" lines; two equal
 *     Strings with arrays of their own (dupStrings: Strings, not arrays);
 *   - class loaders: Collections$Plugin is defined by two URLClassLoaders
 *     of the classes directory (no parent, so neither delegates to the
 *     application loader); one loader is held by the static keptLoader, the
 *     other only through the Plugin instance in plugins;
 *   - a thread "parked-worker", parked in work() with two locals: a
 *     byte[123456] (payload) and a String "parked-tag" (tag).
 * After printing READY the program allocates nothing and waits (it exits by
 * itself after ten minutes).
 *
 * Compile with: javac -d DIR Collections.java
 */
import java.io.File;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.Vector;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class Collections {
    /* Loaded by the two URLClassLoaders only. */
    public static final class Plugin {
        public static final int[] STATE = new int[64];
    }

    static HashMap<String, Integer> hashMap = new HashMap<>();
    static HashMap<String, String> presized = new HashMap<>(64);
    static HashMap<String, String> emptyMap = new HashMap<>();
    static HashMap<String, String> emptiedMap = new HashMap<>();
    static LinkedHashMap<String, String> linkedMap = new LinkedHashMap<>();
    static HashSet<String> hashSet = new HashSet<>();
    static Hashtable<String, String> hashtable = new Hashtable<>();
    static ConcurrentHashMap<String, String> concurrentMap = new ConcurrentHashMap<>();
    static IdentityHashMap<String, String> identityMap = new IdentityHashMap<>();
    static WeakHashMap<String, String> weakMap = new WeakHashMap<>();
    static TreeMap<String, String> treeMap = new TreeMap<>();
    static ArrayList<Long> arrayList = new ArrayList<>();
    static ArrayList<String> bigList = new ArrayList<>(100);
    static ArrayList<String> emptyList = new ArrayList<>();
    static ArrayList<String> oneList = new ArrayList<>();
    static Vector<String> vector = new Vector<>();
    static ArrayDeque<String> deque = new ArrayDeque<>();
    static LinkedList<String> linkedList = new LinkedList<>();
    static PriorityQueue<String> priorityQueue = new PriorityQueue<>();
    static CopyOnWriteArrayList<String> cowList = new CopyOnWriteArrayList<>();
    static java.util.List<String> listOf;
    static java.util.Set<String> setOf;
    static java.util.Map<String, String> mapOf;

    static String[] keys = new String[100]; /* keys kept strongly (weakMap) */
    static int[][] dupInts = new int[5][];
    static byte[][] dupBytes = new byte[3][];
    static long[] zeros = new long[10000];
    static String[] dupStrings = new String[2];
    static Long[] boxes = new Long[1000];

    static ClassLoader keptLoader;
    static Object[] plugins = new Object[1];
    static Thread worker;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 100; i++) {
            keys[i] = "k" + i;
            hashMap.put(keys[i], 1000 * i);
        }
        for (int i = 0; i < 3; i++)
            presized.put(keys[i], "p" + i);
        emptiedMap.put("gone", "gone");
        emptiedMap.remove("gone");
        for (int i = 0; i < 10; i++)
            linkedMap.put(keys[i], keys[i]);
        for (int i = 0; i < 20; i++)
            hashSet.add(keys[i]);
        for (int i = 0; i < 5; i++)
            hashtable.put(keys[i], keys[i]);
        for (int i = 0; i < 50; i++)
            concurrentMap.put(keys[i], keys[i]);
        for (int i = 0; i < 4; i++)
            identityMap.put(keys[i], keys[i]);
        for (int i = 0; i < 3; i++)
            weakMap.put(keys[i], keys[i]);
        for (int i = 0; i < 5; i++)
            treeMap.put(keys[i], keys[i]);
        for (int i = 0; i < 11; i++)
            arrayList.add(1_000_000L + i);
        for (int i = 0; i < 7; i++)
            bigList.add(keys[i]);
        oneList.add(keys[0]);
        for (int i = 0; i < 3; i++)
            vector.add(keys[i]);
        for (int i = 0; i < 5; i++)
            deque.add(keys[i]);
        for (int i = 0; i < 4; i++)
            linkedList.add(keys[i]);
        for (int i = 0; i < 3; i++)
            priorityQueue.add(keys[i]);
        for (int i = 0; i < 3; i++)
            cowList.add(keys[i]);

        listOf = java.util.List.of(keys[0], keys[1], keys[2], keys[3]);
        setOf = java.util.Set.of(keys[0], keys[1], keys[2], keys[3], keys[4]);
        mapOf = java.util.Map.of(keys[0], keys[1], keys[2], keys[3], keys[4], keys[5]);

        for (int k = 0; k < dupInts.length; k++) {
            dupInts[k] = new int[100];
            for (int i = 0; i < 100; i++)
                dupInts[k][i] = 7919 * i + 13;
        }
        for (int k = 0; k < dupBytes.length; k++) {
            dupBytes[k] = new byte[1000];
            java.util.Arrays.fill(dupBytes[k], (byte) 0x5a);
            dupBytes[k][999] = (byte) 0x33;
        }
        for (int i = 0; i < dupStrings.length; i++)
            dupStrings[i] = new String(new char[] {'s', 'a', 'm', 'e', '-', 't', 'e', 'x', 't'});
        for (int i = 0; i < boxes.length; i++)
            boxes[i] = Long.valueOf(5_000_000_000L + i);

        URL dir = Collections.class.getProtectionDomain().getCodeSource().getLocation();
        keptLoader = new URLClassLoader(new URL[] {dir}, null);
        keptLoader.loadClass("Collections$Plugin").getField("STATE").get(null);
        plugins[0] = newPlugin(dir);

        CountDownLatch parked = new CountDownLatch(1);
        worker = new Thread(() -> work(parked), "parked-worker");
        worker.setDaemon(true);
        worker.start();
        parked.await();

        for (Field f : Collections.class.getDeclaredFields())
            describe(f);
        System.out.println("dup int[] 5 100");
        System.out.println("dup byte[] 3 1000");
        System.out.println("zeros long[] 10000");
        System.out.println("boxes java.lang.Long 1000");
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }

    /* A Plugin from a loader of its own, which nothing but the Plugin's
     * class keeps (no local of main holds it). */
    static Object newPlugin(URL dir) throws Exception {
        ClassLoader other = new URLClassLoader(new URL[] {dir}, null);
        return other.loadClass("Collections$Plugin").getDeclaredConstructor().newInstance();
    }

    static void work(CountDownLatch parked) {
        byte[] payload = new byte[123456];
        String tag = new String("parked-tag");
        parked.countDown();
        while (true) {
            LockSupport.park();
            if (payload.length + tag.length() == 0)
                break;
        }
    }

    /* "coll FIELD SIZE CAPACITY" for a collection held by field f. */
    static void describe(Field f) throws Exception {
        Object c = f.get(null);
        if (!(c instanceof java.util.Collection) && !(c instanceof java.util.Map))
            return;
        int size = c instanceof java.util.Map ? ((java.util.Map<?, ?>) c).size()
                                              : ((java.util.Collection<?>) c).size();
        long capacity = size;
        if (c instanceof HashSet)
            c = internal(c, "map");
        String name = c.getClass().getName();
        if (c instanceof IdentityHashMap || name.endsWith("ImmutableCollections$MapN"))
            capacity = length(internal(c, "table")) / 2;
        else if (name.startsWith("java.util.ImmutableCollections$"))
            capacity = length(internal(c, "elements"));
        else if (c instanceof HashMap || c instanceof Hashtable || c instanceof WeakHashMap ||
                 c instanceof ConcurrentHashMap)
            capacity = length(internal(c, "table"));
        else if (c instanceof ArrayList || c instanceof Vector)
            capacity = length(internal(c, "elementData"));
        else if (c instanceof ArrayDeque)
            capacity = length(internal(c, "elements"));
        else if (c instanceof PriorityQueue)
            capacity = length(internal(c, "queue"));
        else if (c instanceof CopyOnWriteArrayList)
            capacity = length(internal(c, "array"));
        System.out.println("coll " + f.getName() + " " + size + " " + capacity);
    }

    static Object internal(Object o, String name) throws Exception {
        for (Class<?> k = o.getClass(); k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                continue;
            }
        }
        throw new NoSuchFieldException(name);
    }

    static int length(Object array) {
        return array == null ? 0 : java.lang.reflect.Array.getLength(array);
    }
}
