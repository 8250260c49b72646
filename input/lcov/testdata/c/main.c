#include <stdio.h>
#include "util.h"

static int sum_squares(int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += square(i);
	return total;
}

int main(void)
{
	int s = sum_squares(5);
	printf("%d %d\n", s, clamp(s, 0, 10));
	return 0;
}
