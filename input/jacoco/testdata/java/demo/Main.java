package demo;

public class Main {
	static int sumSquares(int n) {
		int total = 0;
		for (int i = 0; i < n; i++) {
			total += Util.square(i);
		}
		return total;
	}

	public static void main(String[] args) {
		int s = sumSquares(5);
		Counter c = new Counter();
		c.add(s);
		System.out.println(s + " " + Util.clamp(s, 0, 10) + " " + c.value);
	}

	static class Counter {
		int value;

		void add(int v) {
			value += v;
		}

		void reset() {
			value = 0;
		}
	}
}
