package planted.r1ok.domain;

import java.util.List;

public record JdkOnly(byte[] payload, List<String> names, int[] counts) {
}
