/*
 * RetainedShape - a JVM heap whose structure fixes the answers to
 * retained-size, dominator and path-to-GC-root questions.  Made into a dump
 * by tests/programs/java/mkdump_retained.sh; checked against VisualVM by
 * tests/programs/java/VvmRetained.java (see tests/programs/java/README-retained.md).
 *
 * Everything that must stay alive hangs off static fields of RetainedShape.
 * Each structure is built in its own method, so that when main() sleeps no
 * stack slot refers to anything (an interpreted frame's dead locals would
 * otherwise be dumped as JAVA FRAME roots).
 *
 * Shallow sizes, 64-bit HotSpot 17 with compressed oops and class pointers
 * (12-byte instance header, 4-byte references, 16-byte array header,
 * 8-byte alignment):
 *   Holder10          16  (header 12 + Object[] arrays 4)
 *   Object[10]        56  (16 + 10 x 4)
 *   byte[1048576]     1048592
 *   SharedHolder      24  (12 + Shared shared 4 + int id 4)
 *   Shared            16  (12 + byte[] payload 4)
 *   byte[4096]        4112
 *   ChainNode         24  (12 + int index 4 + ChainNode next 4 = 20 -> 24)
 *   PathA, PathB      16  (12 + one reference)
 *   PathTarget        24  (12 + long marker 8 = 20 -> 24)
 *   SoftHolder        16  (12 + SoftReference ref 4)
 *   SoftReference     40  (12 + referent, queue, next, discovered 4 x 4
 *                          = 28, long timestamp aligned to 32 -> 40)
 *   byte[2097152]     2097168
 *   WeakHolder        16  (12 + WeakReference ref 4)
 *   WeakReference     32  (12 + 4 x 4 = 28 -> 32)
 *   byte[3145728]     3145744
 *   Marker[5]         40  (16 + 5 x 4 = 36 -> 40)
 *   Garbage           32  (12 + int index 4 + long stamp 8 + long pad 8)
 *   Garbage[1000]     4016
 *
 * Structures (the statics of RetainedShape hold them):
 *   holder10    one Holder10; arrays = Object[10] of ten distinct
 *               byte[1 << 20], referenced from nowhere else.
 *               retained = 16 + 56 + 10 x 1048592 = 10485992
 *   sharedA,    two SharedHolder (id 1 and 2), both .shared -> the same
 *   sharedB     Shared, whose payload is a byte[4096].  Each holder
 *               retains 24 (itself); Shared retains 16 + 4112 = 4128 and
 *               is dominated by neither holder.
 *   chain       head of 100000 ChainNode linked by next (index 0 at the
 *               head, 99999 at the tail): the head retains 100000 x 24 =
 *               2400000; node i retains (100000 - i) x 24.
 *   pathRoot    PathA -b-> PathB -c-> PathTarget (marker 0x7a26e7).
 *               retained: PathA 56, PathB 40, PathTarget 24.
 *   softHolder  SoftHolder.ref = SoftReference to a byte[2 << 20] reachable
 *               only through it.  Weak/soft referents not counted:
 *               SoftHolder retains 16 + 40 = 56; counted as strong:
 *               56 + 2097168 = 2097224.
 *   weakHolder  WeakHolder.ref = WeakReference to a byte[3 << 20] reachable
 *               only through it.  Not counted: 16 + 32 = 48; counted:
 *               48 + 3145744 = 3145792.
 *   markers     a Marker[5] of nulls; no Marker instance exists.  Its
 *               class, Marker[], is referred to only through the array's
 *               class pointer.  retained 40 when instance -> class edges
 *               are not followed.
 *   garbage     1000 Garbage in a Garbage[1000], made last and dropped:
 *               unreachable, but in a dump taken with GC.heap_dump -all
 *               as long as no GC ran (mkdump_retained.sh checks).
 *
 * After "ready" the program allocates nothing: it sleeps, and exits by
 * itself after ten minutes in case nobody kills it.
 *
 * Compile with: javac -d DIR RetainedShape.java
 */
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;

public class RetainedShape {
    static final int CHAIN_LENGTH = 100000;
    static final int N_GARBAGE = 1000;

    static class Holder10 {
        Object[] arrays;
    }

    static class Shared {
        byte[] payload;
    }

    static class SharedHolder {
        Shared shared;
        int id;
    }

    static class ChainNode {
        int index;
        ChainNode next;
    }

    static class PathA {
        PathB b;
    }

    static class PathB {
        PathTarget c;
    }

    static class PathTarget {
        long marker;
    }

    static class SoftHolder {
        SoftReference<byte[]> ref;
    }

    static class WeakHolder {
        WeakReference<byte[]> ref;
    }

    static class Marker {
    }

    static class Garbage {
        int index;
        long stamp;
        long pad;
    }

    static Holder10 holder10;
    static SharedHolder sharedA;
    static SharedHolder sharedB;
    static ChainNode chain;
    static PathA pathRoot;
    static SoftHolder softHolder;
    static WeakHolder weakHolder;
    static Marker[] markers;
    // Set, then cleared: a static store keeps the JIT from eliding the
    // allocations (escape analysis), the null makes them unreachable.
    static Garbage[] garbage;

    static void buildHolder10() {
        Holder10 h = new Holder10();
        h.arrays = new Object[10];
        for (int i = 0; i < 10; i++) {
            byte[] a = new byte[1 << 20];
            a[0] = (byte) (i + 1);
            h.arrays[i] = a;
        }
        holder10 = h;
    }

    static void buildShared() {
        Shared s = new Shared();
        s.payload = new byte[4096];
        SharedHolder a = new SharedHolder();
        a.id = 1;
        a.shared = s;
        SharedHolder b = new SharedHolder();
        b.id = 2;
        b.shared = s;
        sharedA = a;
        sharedB = b;
    }

    static void buildChain() {
        ChainNode head = null;
        for (int i = CHAIN_LENGTH - 1; i >= 0; i--) {
            ChainNode n = new ChainNode();
            n.index = i;
            n.next = head;
            head = n;
        }
        chain = head;
    }

    static void buildPath() {
        PathTarget t = new PathTarget();
        t.marker = 0x7a26e7L;
        PathB b = new PathB();
        b.c = t;
        PathA a = new PathA();
        a.b = b;
        pathRoot = a;
    }

    static void buildReferences() {
        SoftHolder s = new SoftHolder();
        s.ref = new SoftReference<>(new byte[2 << 20]);
        softHolder = s;
        WeakHolder w = new WeakHolder();
        w.ref = new WeakReference<>(new byte[3 << 20]);
        weakHolder = w;
    }

    // The class object of Marker[] is referred to by nothing in the heap
    // but this array's class pointer (array classes are not in their
    // loader's class list): it tells whether a tool counts the
    // instance -> class edge.
    static void buildMarkers() {
        markers = new Marker[5];
    }

    static void buildGarbage() {
        Garbage[] g = new Garbage[N_GARBAGE];
        for (int i = 0; i < N_GARBAGE; i++) {
            Garbage x = new Garbage();
            x.index = i;
            x.stamp = 0x6a7ba6eL + i;
            g[i] = x;
        }
        garbage = g;
        garbage = null;
    }

    public static void main(String[] args) throws Exception {
        buildHolder10();
        buildShared();
        buildChain();
        buildPath();
        buildReferences();
        buildMarkers();
        buildGarbage();
        System.out.println("ready");
        System.out.flush();
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline)
            Thread.sleep(1000);
        System.exit(0);
    }
}
