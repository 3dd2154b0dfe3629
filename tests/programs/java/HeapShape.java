/*
 * HeapShape - a JVM heap of known shape, for tests/mount/t_jcmd.sh.
 *
 * Everything below is reachable from static fields of HeapShape, so a live
 * heap dump (jcmd PID GC.heap_dump) and a class histogram (jcmd PID
 * GC.class_histogram) taken after "READY" see the same objects.  After
 * printing READY the program allocates nothing: it sleeps, and exits by
 * itself after ten minutes in case nobody kills it.
 *
 * Known contents (the test relies on these numbers and strings):
 *   Alpha          1234 instances (held by one Alpha[1234])
 *   Beta$Inner      777 instances (held by one Beta$Inner[777]); 1 Beta
 *   CycleA, CycleB    1 each, A.b -> B and B.a -> A (a reference cycle)
 *   int[4099], long[333], byte[5555], Object[42], int[7][9] (one int[][]
 *   of 7 plus seven int[9]), all held by static fields
 *   Strings: SECRET = "secret-token-c0ffee1234" (built at run time),
 *   LATIN1 = "café-latin1-marker" (JDK 9+ LATIN1 coder, a byte > 0x7f),
 *   UTF16 = "Привет-мир-日本語-utf16-marker" (JDK 9+ UTF16 coder)
 *   LAMBDA, CAPTURING: lambda instances (hidden classes; the JVM names them
 *   HeapShape$$Lambda$N/0x... in jcmd and HeapShape$$Lambda$N+0x... in the
 *   dump's class name strings)
 *
 * Compile with: javac -encoding UTF-8 -d DIR HeapShape.java
 */
import java.util.function.Supplier;

class Alpha {
    int id;
    long weight;

    Alpha(int id) {
        this.id = id;
        this.weight = id * 3L;
    }
}

class Beta {
    static class Inner {
        Object owner;
        short tag;

        Inner(Object owner, short tag) {
            this.owner = owner;
            this.tag = tag;
        }
    }

    String label = "beta";
}

class CycleA {
    CycleB b;
    String name = "cycle-a";
}

class CycleB {
    CycleA a;
    int depth = 2;
}

public class HeapShape {
    static final int N_ALPHA = 1234;
    static final int N_INNER = 777;

    static Alpha[] alphas;
    static Beta beta;
    static Beta.Inner[] inners;
    static CycleA cycle;
    static int[] ints;
    static long[] longs;
    static byte[] bytes;
    static Object[] objects;
    static int[][] grid;
    static String secret;
    static String latin1;
    static String utf16;
    static Runnable lambda;
    static Supplier<String> capturing;

    public static void main(String[] args) throws Exception {
        alphas = new Alpha[N_ALPHA];
        for (int i = 0; i < N_ALPHA; i++)
            alphas[i] = new Alpha(i);

        beta = new Beta();
        inners = new Beta.Inner[N_INNER];
        for (int i = 0; i < N_INNER; i++)
            inners[i] = new Beta.Inner(beta, (short) i);

        cycle = new CycleA();
        cycle.b = new CycleB();
        cycle.b.a = cycle;

        ints = new int[4099];
        for (int i = 0; i < ints.length; i++)
            ints[i] = i * 7;
        longs = new long[333];
        for (int i = 0; i < longs.length; i++)
            longs[i] = 1L << (i % 63);
        bytes = new byte[5555];
        for (int i = 0; i < bytes.length; i++)
            bytes[i] = (byte) ('a' + i % 26);
        grid = new int[7][9];
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < 9; j++)
                grid[i][j] = i * 9 + j;

        // Built at run time so it is an ordinary heap String, not only a
        // constant-pool literal.
        secret = "secret-token-" + Long.toHexString(0xC0FFEE1234L);
        latin1 = new String("café-latin1-marker");
        utf16 = new String("Привет-мир-日本語-utf16-marker");

        lambda = () -> { };
        final String captured = secret;
        capturing = () -> captured;

        objects = new Object[42];
        objects[0] = cycle;
        objects[1] = secret;
        objects[2] = grid;
        objects[3] = lambda;

        System.out.println("READY");
        System.out.flush();
        // No allocation from here on: sleep, then leave by ourselves.
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline)
            Thread.sleep(1000);
        System.exit(0);
    }
}
