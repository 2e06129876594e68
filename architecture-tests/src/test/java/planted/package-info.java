/**
 * Fixtures that break one architecture rule each, for the tests that prove every rule can fail. One base package
 * per case ({@code planted.r1lib}, ...), so cases do not leak into each other. Never imported by production rules.
 */
package planted;
