package demo;

final class Util {
	private Util() {
	}

	static int square(int x) {
		return x * x;
	}

	static int clamp(int v, int lo, int hi) {
		if (v < lo) {
			return lo;
		}
		if (v > hi) {
			return hi;
		}
		return v;
	}

	static int neverCalled(int x) {
		int y = x + 1;
		return y * y;
	}
}
