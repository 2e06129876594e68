package planted.r2ok.domain;

public class Rule {
}
