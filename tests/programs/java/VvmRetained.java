/*
 * VvmRetained - retained sizes, referrers and paths to GC roots as
 * VisualVM's heap library computes them: an oracle independent of heapfs.
 *
 * Build and run against the library jar (Debian package visualvm):
 *   J=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
 *   javac -cp $J -d DIR tests/programs/java/VvmRetained.java
 *   java -cp $J:DIR VvmRetained [--time] DUMP CLASS [CLASS...]
 *   java -cp $J:DIR VvmRetained [--time] DUMP --all-top N
 *   java -cp $J:DIR VvmRetained DUMP --path CLASS [CLASS...]
 *   java -cp $J:DIR VvmRetained DUMP --referrers CLASS [CLASS...]
 *   java -cp $J:DIR VvmRetained DUMP --idom CLASS [CLASS...]
 *
 * CLASS is VisualVM's (and heapfs's) display name: RetainedShape$Holder10,
 * byte[], java.lang.Object[].  Every class of that name counts (one per
 * class loader).  Only instances of exactly that class, not of subclasses.
 * A CLASS of the form 0xID names one object instead (any object, a class
 * object too: class objects are not instances of java.lang.Class here).
 *
 * Default mode: one line per instance, all classes together sorted by id:
 *   0xID SHALLOW RETAINED CLASS
 * ids are the dump's object ids in lower-case hex, as heapfs names
 * objects/0xID.  --all-top N: the N objects with the largest retained
 * size, largest first, same format.
 * --path: per instance, VisualVM's path to its nearest GC root:
 *   0xID CLASS <- 0xID CLASS.FIELD <- ... <- root KIND[,KIND]
 * (FIELD is the referring field or [index]; a class object is shown as
 * "class NAME" and its static field as "NAME.FIELD"; "unreachable" when
 * VisualVM finds no path).
 * --referrers: per instance, one line per referring value:
 *   0xID CLASS <- 0xREF REFCLASS.FIELD
 * --idom: per instance, its immediate dominator in VisualVM's dominator tree:
 *   0xID CLASS idom 0xDOM DOMCLASS     (or "idom root": a GC root, or an
 *   object dominated only by the virtual root; "idom none": unreachable)
 * This reads VisualVM's internal DominatorTree by reflection (the library
 * has no public call for it); it says so and exits 3 if that fails.
 * --time: on stderr "vvm load: N.NN s" (opening and indexing the dump) and
 * "vvm retained: N.NN s" (from then until the requested retained sizes are
 * known: the whole-heap dominator computation), for a bench run under
 * timeout(1).
 *
 * Note: VisualVM keeps its indexes in DUMP.hwcache beside the dump (a
 * temporary directory when that one cannot be made).  It is removed before
 * the dump is opened, so each run computes everything again, and after.
 */
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.graalvm.visualvm.lib.jfluid.heap.ArrayItemValue;
import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.Value;

public class VvmRetained {
    static void usage() {
        System.err.println("usage: VvmRetained [--time] DUMP CLASS [CLASS...]\n"
                + "       VvmRetained [--time] DUMP --all-top N\n"
                + "       VvmRetained DUMP --path CLASS [CLASS...]\n"
                + "       VvmRetained DUMP --referrers CLASS [CLASS...]\n"
                + "       VvmRetained DUMP --idom CLASS [CLASS...]");
        System.exit(2);
    }

    static String id(Instance i) {
        return "0x" + Long.toHexString(i.getInstanceId());
    }

    static String line(Instance i) {
        return id(i) + " " + i.getSize() + " " + i.getRetainedSize() + " " + i.getJavaClass().getName();
    }

    /* A class object (statics) is an Instance of java.lang.Class whose id is
     * the class's id; show it by the class it stands for. */
    static String describe(Heap heap, Instance i) {
        JavaClass asClass = heap.getJavaClassByID(i.getInstanceId());
        if (asClass != null && "java.lang.Class".equals(i.getJavaClass().getName()))
            return id(i) + " class " + asClass.getName();
        return id(i) + " " + i.getJavaClass().getName();
    }

    /* How `from` refers to `to`: field name, static field, or [index]. */
    static String via(Heap heap, Instance from, Instance to) {
        JavaClass asClass = heap.getJavaClassByID(from.getInstanceId());
        List<FieldValue> statics = asClass != null ? asClass.getStaticFieldValues() : from.getStaticFieldValues();
        for (FieldValue v : from.getFieldValues())
            if (v instanceof ObjectFieldValue && refersTo(((ObjectFieldValue) v).getInstance(), to))
                return "." + v.getField().getName();
        if (statics != null)
            for (FieldValue v : statics)
                if (v instanceof ObjectFieldValue && refersTo(((ObjectFieldValue) v).getInstance(), to))
                    return "." + v.getField().getName() + " (static)";
        for (Value v : to.getReferences())
            if (v instanceof ArrayItemValue && v.getDefiningInstance().getInstanceId() == from.getInstanceId())
                return "[" + ((ArrayItemValue) v).getIndex() + "]";
        return " (no field: class, loader or other implicit edge)";
    }

    static boolean refersTo(Instance target, Instance to) {
        return target != null && target.getInstanceId() == to.getInstanceId();
    }

    static String referrer(Heap heap, Value v) {
        Instance from = v.getDefiningInstance();
        String where;
        if (v instanceof ArrayItemValue)
            where = "[" + ((ArrayItemValue) v).getIndex() + "]";
        else if (v instanceof FieldValue)
            where = "." + ((FieldValue) v).getField().getName() + (((FieldValue) v).getField().isStatic() ? " (static)" : "");
        else
            where = " (" + v.getClass().getSimpleName() + ")";
        return describe(heap, from) + where;
    }

    static String rootKinds(Heap heap, Instance i) {
        Collection<GCRoot> roots = heap.getGCRoots(i);
        if (roots == null || roots.isEmpty())
            return "root ?";
        StringBuilder sb = new StringBuilder("root ");
        String sep = "";
        for (GCRoot r : roots) {
            sb.append(sep).append(r.getKind());
            sep = ",";
        }
        return sb.toString();
    }

    static String path(Heap heap, Instance i) {
        StringBuilder sb = new StringBuilder(describe(heap, i));
        Instance cur = i;
        for (int steps = 0; steps < 1_000_000; steps++) {
            Instance up = cur.getNearestGCRootPointer();
            if (up == null)
                return sb.append(" <- unreachable").toString();
            if (up.getInstanceId() == cur.getInstanceId() || cur.isGCRoot())
                return sb.append(" <- ").append(rootKinds(heap, cur)).toString();
            sb.append(" <- ").append(describe(heap, up)).append(via(heap, up, cur));
            cur = up;
        }
        return sb.append(" <- (path longer than 1000000)").toString();
    }

    static Object domTree;
    static java.lang.reflect.Method getIdomId;

    /* VisualVM's immediate dominator of i: 0 for none (root or unreachable). */
    static long idom(Heap heap, Instance i) {
        try {
            if (domTree == null) {
                heap.getBiggestObjectsByRetainedSize(1); // computes the dominator tree
                java.lang.reflect.Field f = heap.getClass().getDeclaredField("domTree");
                f.setAccessible(true);
                domTree = f.get(heap);
                Class<?> entry = Class.forName("org.graalvm.visualvm.lib.jfluid.heap.LongMap$Entry");
                getIdomId = domTree.getClass().getDeclaredMethod("getIdomId", long.class, entry);
                getIdomId.setAccessible(true);
            }
            return (Long) getIdomId.invoke(domTree, i.getInstanceId(), null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("VvmRetained: cannot read VisualVM's dominator tree: " + e);
            System.exit(3);
            return 0;
        }
    }

    static String idomLine(Heap heap, Instance i) {
        long d = idom(heap, i);
        String me = describe(heap, i);
        if (d != 0) {
            Instance di = heap.getInstanceByID(d);
            return me + " idom " + (di != null ? describe(heap, di) : "0x" + Long.toHexString(d) + " ?");
        }
        if (i.isGCRoot() || i.getNearestGCRootPointer() != null)
            return me + " idom root";
        return me + " idom none";
    }

    static List<Instance> instancesOf(Heap heap, String name) {
        List<Instance> out = new ArrayList<>();
        if (name.startsWith("0x")) { // one object by id (a class object too)
            Instance i = heap.getInstanceByID(Long.parseUnsignedLong(name.substring(2), 16));
            if (i == null) {
                System.err.println("VvmRetained: no object " + name + " in the dump");
                System.exit(1);
            }
            out.add(i);
            return out;
        }
        Collection<JavaClass> classes = heap.getJavaClassesByRegExp(Pattern.quote(name));
        if (classes.isEmpty()) {
            System.err.println("VvmRetained: no class " + name + " in the dump");
            System.exit(1);
        }
        for (JavaClass c : classes)
            out.addAll(c.getInstances());
        return out;
    }

    static void deleteTree(File f) {
        File[] kids = f.listFiles();
        if (kids != null)
            for (File k : kids)
                deleteTree(k);
        f.delete();
    }

    static String secs(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    public static void main(String[] args) throws IOException {
        int a = 0;
        boolean time = false;
        if (a < args.length && args[a].equals("--time")) {
            time = true;
            a++;
        }
        if (args.length - a < 2)
            usage();
        File dump = new File(args[a++]);
        if (!dump.canRead()) {
            System.err.println("VvmRetained: cannot read " + dump);
            System.exit(1);
        }
        String mode = "sizes";
        if (args[a].startsWith("--")) {
            mode = args[a++];
            if (!mode.equals("--all-top") && !mode.equals("--path") && !mode.equals("--referrers")
                    && !mode.equals("--idom"))
                usage();
        }
        if (a >= args.length)
            usage();

        File cache = new File(dump.getAbsoluteFile().getParentFile(), dump.getName() + ".hwcache");
        deleteTree(cache);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(cache)));
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(dump);
        long t1 = System.nanoTime();
        if (time)
            System.err.println("vvm load: " + secs(t1 - t0));

        StringBuilder out = new StringBuilder();
        switch (mode) {
        case "--all-top": {
            int n = Integer.parseInt(args[a]);
            List<Instance> top = heap.getBiggestObjectsByRetainedSize(n);
            if (time)
                System.err.println("vvm retained: " + secs(System.nanoTime() - t1));
            for (Instance i : top)
                out.append(line(i)).append('\n');
            break;
        }
        case "sizes": {
            List<Instance> all = new ArrayList<>();
            for (int k = a; k < args.length; k++)
                all.addAll(instancesOf(heap, args[k]));
            all.sort((x, y) -> Long.compareUnsigned(x.getInstanceId(), y.getInstanceId()));
            List<String> lines = new ArrayList<>();
            for (Instance i : all)
                lines.add(line(i));
            if (time)
                System.err.println("vvm retained: " + secs(System.nanoTime() - t1));
            for (String l : lines)
                out.append(l).append('\n');
            break;
        }
        case "--path":
        case "--idom":
        case "--referrers": {
            for (int k = a; k < args.length; k++) {
                List<Instance> all = instancesOf(heap, args[k]);
                all.sort((x, y) -> Long.compareUnsigned(x.getInstanceId(), y.getInstanceId()));
                for (Instance i : all) {
                    if (mode.equals("--path")) {
                        out.append(path(heap, i)).append('\n');
                        continue;
                    }
                    if (mode.equals("--idom")) {
                        out.append(idomLine(heap, i)).append('\n');
                        continue;
                    }
                    List<Value> refs = i.getReferences();
                    if (refs.isEmpty())
                        out.append(describe(heap, i)).append(" <- (none)\n");
                    for (Value v : refs)
                        out.append(describe(heap, i)).append(" <- ").append(referrer(heap, v)).append('\n');
                }
            }
            break;
        }
        }
        System.out.print(out);
        System.out.flush();
    }
}
