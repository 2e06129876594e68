package planted.r8out;

public class Printer {
    public void print(String s) {
        System.out.println(s);
    }
}
