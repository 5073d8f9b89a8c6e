// tags: collections
// release: 8
// ArrayList and LinkedList: add (at end and at index), get, set, remove by index and by
// value, indexOf, contains, size, isEmpty, clear, addAll, equals and hashCode across the two
// kinds, toString (nested, self-free), iterator with remove, removeIf, forEach, sort with
// a comparator and with null (natural order), LinkedList as a deque, and growth.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

public class Lists {
    static void exercise(List<Integer> list, String kind) {
        for (int i = 0; i < 10; i++) {
            list.add(i * 3 % 10);
        }
        list.add(0, -1);
        list.add(5, 100);
        list.set(1, 42);
        System.out.println(kind + " " + list + " size " + list.size());
        System.out.println("  get " + list.get(0) + " " + list.get(list.size() - 1) + " indexOf(9) " + list.indexOf(9)
            + " indexOf(77) " + list.indexOf(77) + " contains(100) " + list.contains(100));
        list.remove(Integer.valueOf(100));
        int removed = list.remove(0);
        System.out.println("  removed " + removed + " -> " + list);
        Iterator<Integer> it = list.iterator();
        while (it.hasNext()) {
            if (it.next() % 2 == 1) {
                it.remove();
            }
        }
        System.out.println("  evens " + list);
        list.removeIf(x -> x == 0);
        list.addAll(Arrays.asList(7, 8, 9));
        System.out.println("  " + list + " empty " + list.isEmpty());
        list.sort(null);
        System.out.println("  sorted " + list);
        list.sort((a, b) -> b - a);
        System.out.println("  reversed " + list);
        StringBuilder sb = new StringBuilder();
        list.forEach(x -> sb.append(x).append(';'));
        System.out.println("  forEach " + sb);
        list.clear();
        System.out.println("  cleared " + list + " " + list.isEmpty() + " " + list.size());
    }

    public static void main(String[] args) {
        exercise(new ArrayList<>(), "ArrayList");
        exercise(new LinkedList<>(), "LinkedList");
        List<String> a = new ArrayList<>(Arrays.asList("x", "y", "z"));
        List<String> l = new LinkedList<>(a);
        System.out.println("equals across kinds " + a.equals(l) + " " + (a.hashCode() == l.hashCode()) + " " + a.hashCode());
        l.add(null);
        System.out.println(l + " " + l.contains(null) + " " + l.indexOf(null) + " " + a.equals(l));
        List<List<Integer>> nested = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<Integer> row = new ArrayList<>();
            for (int j = 0; j <= i; j++) {
                row.add(i * j);
            }
            nested.add(row);
        }
        System.out.println(nested + " " + nested.hashCode());
        LinkedList<String> dq = new LinkedList<>();
        dq.addFirst("b");
        dq.addFirst("a");
        dq.addLast("c");
        dq.push("front");
        dq.offer("back");
        System.out.println(dq + " first " + dq.getFirst() + " last " + dq.getLast() + " peek " + dq.peek());
        System.out.println(dq.pop() + " " + dq.removeLast() + " " + dq.pollFirst() + " " + dq.poll() + " " + dq);
        List<Integer> big = new ArrayList<>();
        for (int i = 0; i < 50000; i++) {
            big.add(i ^ 0x5a5a);
        }
        long sum = 0;
        for (int i = 0; i < big.size(); i += 7) {
            sum += big.get(i);
        }
        for (int i = big.size() - 1; i >= 0; i -= 1000) {
            big.remove(i);
        }
        System.out.println("big " + big.size() + " " + sum + " " + big.get(12345) + " " + big.hashCode());
        LinkedList<Integer> linked = new LinkedList<>();
        for (int i = 0; i < 2000; i++) {
            if (i % 2 == 0) {
                linked.addFirst(i);
            } else {
                linked.addLast(i);
            }
        }
        Iterator<Integer> li = linked.iterator();
        int kept = 0;
        while (li.hasNext()) {
            if (li.next() % 3 == 0) {
                li.remove();
            } else {
                kept++;
            }
        }
        System.out.println("linked " + kept + " " + linked.size() + " " + linked.getFirst() + " " + linked.getLast() + " "
            + linked.get(1000) + " " + linked.hashCode());
        Object[] arr = a.toArray();
        String[] typed = a.toArray(new String[0]);
        System.out.println(arr.length + " " + typed[2] + " " + Arrays.toString(typed));
    }
}
