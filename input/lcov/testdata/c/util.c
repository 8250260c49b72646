#include "util.h"

int square(int x)
{
	return x * x;
}

int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

int never_called(int x)
{
	int y = x + 1;
	return y * y;
}
