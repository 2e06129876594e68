package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.ConsumerGroupEntity.Member;
import dev.iggysink.testkit.iggy.WireReader.Ident;

/**
 * Consumer groups: create, get, list, delete, join, leave. Who owns which partition is the group's own business
 * ({@link ConsumerGroupEntity}); these only find the group and keep the client's memberships in step.
 */
final class GroupCommands {

    private final Catalog catalog;

    GroupCommands(Catalog catalog) {
        this.catalog = catalog;
    }

    byte[] createGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        String name = in.name();
        client.requireAuthenticated();
        TopicEntity t = Catalog.topic(catalog.stream(streamId), topicId);
        if (t.groupsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_NAME_EXISTS);
        }
        ConsumerGroupEntity g = new ConsumerGroupEntity(t, t.groups.nextKey(), name);
        t.groups.insert(g);
        t.groupsByName.put(name, g);
        return groupDetails(new WireWriter(), g).toByteArray();
    }

    byte[] getGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        client.requireAuthenticated();
        ConsumerGroupEntity g = Catalog.findGroup(Catalog.findTopic(catalog.findStream(streamId), topicId), groupId);
        return g == null ? BrokerState.EMPTY : groupDetails(new WireWriter(), g).toByteArray();
    }

    byte[] getGroups(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        client.requireAuthenticated();
        TopicEntity t = Catalog.topic(catalog.stream(streamId), topicId);
        WireWriter w = new WireWriter();
        for (ConsumerGroupEntity g : t.groups.values()) {
            groupHeader(w, g);
        }
        return w.toByteArray();
    }

    byte[] deleteGroup(ClientSession client, WireReader in) {
        ConsumerGroupEntity g = readGroup(client, in);
        TopicEntity t = g.topic;
        for (Member m : g.members.values()) {
            m.client.memberships.remove(g);
        }
        t.groups.remove(g.id);
        t.groupsByName.remove(g.name);
        return BrokerState.EMPTY;
    }

    byte[] joinGroup(ClientSession client, WireReader in) {
        ConsumerGroupEntity g = readGroup(client, in);
        g.join(client, System.nanoTime());
        client.memberships.add(g);
        return BrokerState.EMPTY;
    }

    byte[] leaveGroup(ClientSession client, WireReader in) {
        ConsumerGroupEntity g = readGroup(client, in);
        if (!g.leave(client)) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_MEMBER_NOT_FOUND);
        }
        client.memberships.remove(g);
        return BrokerState.EMPTY;
    }

    /**
     * The group a command names by stream, topic and group identifiers, read in that order from {@code in}; the
     * client must be logged in, and each of the three must exist.
     */
    private ConsumerGroupEntity readGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        client.requireAuthenticated();
        return Catalog.group(Catalog.topic(catalog.stream(streamId), topicId), groupId);
    }

    private static WireWriter groupHeader(WireWriter w, ConsumerGroupEntity g) {
        return w.u32(g.id).u32(g.partitions.size()).u32(g.members.size()).shortString(g.name);
    }

    private static WireWriter groupDetails(WireWriter w, ConsumerGroupEntity g) {
        groupHeader(w, g);
        for (Member m : g.members.values()) {
            w.u32(m.id).u32(m.partitions.size());
            for (Integer p : m.partitions) {
                w.u32(p);
            }
        }
        return w;
    }
}
