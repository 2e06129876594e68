package dev.iggysink.application.fakes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.MessageSourceContract;
import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract against the fake the pipeline tests use, and what only the fake offers (its record of stores). */
class ScriptedMessageSourceContractTest extends MessageSourceContract {

    @Override
    protected Topic createTopic(int partitions) {
        ScriptedMessageSource first = new ScriptedMessageSource("contract", "events", partitions).pollWithoutWaiting();
        return new Topic() {
            private boolean firstHandedOut;

            @Override
            public PartitionRef partition(int id) {
                return first.partition(id);
            }

            @Override
            public void produce(int partition, List<byte[]> payloads) {
                first.appendBytes(partition, payloads);
            }

            @Override
            public MessageSource newMember() {
                if (!firstHandedOut) {
                    firstHandedOut = true;
                    return first;
                }
                return first.newMember().pollWithoutWaiting();
            }

            @Override
            public void delete() {
                first.deleteTopic();
            }

            @Override
            public void createAgain() {
                first.createTopicAgain();
            }

            @Override
            public void close() {
                // Nothing outlives the test.
            }
        };
    }

    @Test
    void a_store_below_what_another_member_stored_is_recorded_as_backward() throws Exception {
        ScriptedMessageSource first = new ScriptedMessageSource("contract", "events", 1);
        first.append(0, 10, i -> "r" + i);
        first.commit(first.partition(0), 7);
        first.close();
        ScriptedMessageSource second = first.newMember();

        second.commit(second.partition(0), 3);

        assertThat(second.stored(0)).hasValue(3);
        assertThat(second.backwardStores()).containsExactly("0: 7 -> 3");
        assertThat(first.backwardStores()).as("shared by the group").containsExactly("0: 7 -> 3");
    }

    @Test
    void a_store_below_a_scripted_store_of_another_member_is_recorded_as_backward() throws Exception {
        ScriptedMessageSource source = new ScriptedMessageSource("contract", "events", 1);
        source.append(0, 10, i -> "r" + i);
        source.commit(source.partition(0), 2);
        source.store(0, 8);

        source.commit(source.partition(0), 5);

        assertThat(source.stored(0)).hasValue(5);
        assertThat(source.backwardStores()).containsExactly("0: 8 -> 5");
    }

    @Test
    void a_commit_the_member_ignores_stores_nothing_but_is_logged_as_asked() throws Exception {
        ScriptedMessageSource source = new ScriptedMessageSource("contract", "events", 1);
        source.append(0, 10, i -> "r" + i);
        source.commit(source.partition(0), 6);

        source.commit(source.partition(0), 4);

        assertThat(source.stored(0)).hasValue(6);
        assertThat(source.backwardStores()).isEmpty();
        assertThat(source.commitLog()).containsExactly("0:6", "0:4");
    }
}
