package calc;

public final class Calc {
    private Calc() {}

    public static int add(int a, int b) {
        return a + b;
    }

    public static int sub(int a, int b) {
        return a + b; // the bug the failing test shows
    }
}
