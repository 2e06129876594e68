package dev.iggysink.domain.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryBudgetTest {

    @Test
    void reserving_up_to_the_max_exhausts_it_and_releasing_frees_it() {
        MemoryBudget budget = new MemoryBudget(100);
        budget.reserve(60);
        assertThat(budget.exhausted()).isFalse();
        assertThat(budget.available()).isEqualTo(40);
        budget.reserve(40);
        assertThat(budget.exhausted()).isTrue();
        budget.reserve(50); // never refused: the caller pauses polling instead
        assertThat(budget.used()).isEqualTo(150);
        assertThat(budget.available()).isZero();
        budget.release(100);
        assertThat(budget.used()).isEqualTo(50);
        assertThat(budget.exhausted()).isFalse();
        assertThat(budget.max()).isEqualTo(100);
    }

    @Test
    void releasing_more_than_reserved_is_a_bug() {
        MemoryBudget budget = new MemoryBudget(10);
        budget.reserve(5);
        assertThatThrownBy(() -> budget.release(6)).isInstanceOf(IllegalStateException.class);
        assertThat(budget.used()).isEqualTo(5);
        assertThatThrownBy(() -> budget.reserve(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MemoryBudget(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrent_reserve_and_release_balance_out() throws InterruptedException {
        MemoryBudget budget = new MemoryBudget(1_000);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 20_000; i++) {
                    budget.reserve(3);
                    budget.release(3);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        assertThat(budget.used()).isZero();
    }
}
