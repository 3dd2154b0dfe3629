/*
 * TableShape - a JVM heap of known field values, for tests/mount/t_tables.sh:
 * classes/TableShape$Item/table.tsv must hold them, one row per instance,
 * and awk must find them by value.
 *
 * Known contents (the test relies on these numbers and strings): 100
 * TableShape$Item, i = 0..99, each with
 *   count = i, big = 1000000000000 + i, flag = (i % 2 == 0),
 *   ratio = i / 4.0, letter = (char) ('A' + i % 26), small = (short) -i,
 *   name = "item-" + i, next = item i - 1 (null for item 0),
 * and one TableShape$Hostile whose text = "tab\there\nnew\\line" and whose
 * label = "café" (a byte over 0x7f).  All held by static fields; after
 * printing READY the program allocates nothing and sleeps (it exits by
 * itself after ten minutes).
 *
 * Compile with: javac -encoding UTF-8 -d DIR TableShape.java
 */
public class TableShape {
    static final class Item {
        int count;
        long big;
        boolean flag;
        double ratio;
        char letter;
        short small;
        String name;
        Item next;
    }

    static final class Hostile {
        String text;
        String label;
    }

    static Item[] items = new Item[100];
    static Hostile hostile = new Hostile();

    public static void main(String[] args) throws Exception {
        Item prev = null;
        for (int i = 0; i < items.length; i++) {
            Item it = new Item();
            it.count = i;
            it.big = 1_000_000_000_000L + i;
            it.flag = i % 2 == 0;
            it.ratio = i / 4.0;
            it.letter = (char) ('A' + i % 26);
            it.small = (short) -i;
            it.name = "item-" + i;
            it.next = prev;
            items[i] = it;
            prev = it;
        }
        hostile.text = new StringBuilder("tab\there\nnew").append('\\').append("line").toString();
        hostile.label = new String("caf\u00e9");
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
