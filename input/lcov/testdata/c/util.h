int square(int x);
int clamp(int v, int lo, int hi);
int never_called(int x);
