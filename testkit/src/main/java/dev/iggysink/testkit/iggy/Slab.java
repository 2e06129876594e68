package dev.iggysink.testkit.iggy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Keyed storage that hands out the most recently freed key first, like Rust's {@code slab::Slab}: the 0.8 server
 * allocates stream, topic, group and member ids this way, so a deleted stream's id is reused by the next create.
 */
final class Slab<T> {

    private final List<T> slots = new ArrayList<>();
    private final Deque<Integer> vacant = new ArrayDeque<>();
    private int size;

    int insert(T value) {
        size++;
        if (vacant.isEmpty()) {
            slots.add(value);
            return slots.size() - 1;
        }
        int key = vacant.pop();
        slots.set(key, value);
        return key;
    }

    int nextKey() {
        return vacant.isEmpty() ? slots.size() : vacant.peek();
    }

    T get(long key) {
        if (key < 0 || key >= slots.size()) {
            return null;
        }
        return slots.get((int) key);
    }

    T remove(int key) {
        T value = get(key);
        if (value != null) {
            slots.set(key, null);
            vacant.push(key);
            size--;
        }
        return value;
    }

    /** Values in key order, which is the iteration order the server's rebalancing depends on. */
    List<T> values() {
        List<T> out = new ArrayList<>(size);
        for (T t : slots) {
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    int size() {
        return size;
    }
}
