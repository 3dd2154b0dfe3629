/*
 * MakeHeap - builds a large heap of many small objects and dumps it, for
 * bench/bench.sh.  Usage: java -Xmx6g MakeHeap OUT.hprof [scale]
 *
 * At scale 1 (the default) the heap holds about 19 million objects and the
 * HPROF file written is about 1 GB:
 *   12,000,000 Node      {int key; Node next; Object payload}  (linked in
 *                        chains of 1000, so references point everywhere)
 *    3,000,000 String    of 16..31 characters (3,000,000 byte[] behind them)
 *    1,000,000 int[8]
 *      500,000 Object[4]
 *          100 byte[1 MiB]
 * Everything is reachable from static fields; the dump is written by the JVM
 * itself (HotSpotDiagnosticMXBean.dumpHeap, live objects only), the same
 * writer as `jcmd PID GC.heap_dump`.  A fixed seed keeps runs alike.
 */
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Random;

public class MakeHeap {
    static final class Node {
        int key;
        Node next;
        Object payload;
    }

    static Node[] chains;
    static String[] strings;
    static int[][] intArrays;
    static Object[][] objArrays;
    static byte[][] blobs;

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: MakeHeap OUT.hprof [scale]");
            System.exit(2);
        }
        double scale = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        int nNodes = (int) (12_000_000 * scale);
        int nStrings = (int) (3_000_000 * scale);
        int nInts = (int) (1_000_000 * scale);
        int nObjs = (int) (500_000 * scale);
        int nBlobs = (int) Math.max(1, 100 * scale);
        Random rnd = new Random(42);

        strings = new String[nStrings];
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nStrings; i++) {
            sb.setLength(0);
            sb.append("str-").append(i).append('-');
            int extra = 16 + rnd.nextInt(16) - sb.length();
            for (int j = 0; j < extra; j++)
                sb.append((char) ('a' + rnd.nextInt(26)));
            strings[i] = sb.toString();
        }

        int chainLen = 1000;
        chains = new Node[(nNodes + chainLen - 1) / chainLen];
        for (int i = 0; i < nNodes; i++) {
            Node n = new Node();
            n.key = i;
            int c = i / chainLen;
            n.next = chains[c];
            if (i % 4 == 0)
                n.payload = strings[rnd.nextInt(nStrings)];
            chains[c] = n;
        }

        intArrays = new int[nInts][];
        for (int i = 0; i < nInts; i++) {
            int[] a = new int[8];
            for (int j = 0; j < 8; j++)
                a[j] = i + j;
            intArrays[i] = a;
        }

        objArrays = new Object[nObjs][];
        for (int i = 0; i < nObjs; i++) {
            Object[] a = new Object[4];
            a[0] = strings[rnd.nextInt(nStrings)];
            a[1] = chains[rnd.nextInt(chains.length)];
            a[2] = intArrays[rnd.nextInt(nInts)];
            objArrays[i] = a;
        }

        blobs = new byte[nBlobs][];
        for (int i = 0; i < nBlobs; i++) {
            byte[] b = new byte[1 << 20];
            rnd.nextBytes(b);
            blobs[i] = b;
        }

        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long t0 = System.nanoTime();
        bean.dumpHeap(args[0], true);
        System.out.printf("dumped %s in %.1f s%n", args[0], (System.nanoTime() - t0) / 1e9);
    }
}
