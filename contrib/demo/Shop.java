// A small program with a leak, for `make demo`: a cache of orders that only
// grows.  It prints READY when its heap is settled, then sleeps so jcmd can
// dump it.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Shop {
    static final class Customer {
        final String name;
        final String email;
        Customer(String name, String email) { this.name = name; this.email = email; }
    }

    static final class Order {
        final Customer customer;
        final long cents;
        final String note;
        Order(Customer customer, long cents, String note) {
            this.customer = customer; this.cents = cents; this.note = note;
        }
    }

    // The leak: orders are cached forever.
    static final Map<Integer, Order> ORDER_CACHE = new HashMap<>();
    static final List<Customer> CUSTOMERS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 50; i++)
            CUSTOMERS.add(new Customer("customer-" + i, "c" + i + "@example.com"));
        for (int i = 0; i < 5000; i++)
            ORDER_CACHE.put(i, new Order(CUSTOMERS.get(i % 50), 100 + i, "order note " + i));
        CUSTOMERS.get(7).email.hashCode();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
