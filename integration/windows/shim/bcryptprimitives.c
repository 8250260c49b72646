/*
 * bcryptprimitives.dll for Wine 8: ProcessPrng only.
 *
 * Go's runtime (1.24 and later) takes its random bytes on Windows from
 * ProcessPrng in bcryptprimitives.dll, which every Windows 10 and 11 has;
 * it loads the DLL from system32 and throws at start-up without it. Wine 8
 * (Debian 12's wine64) has no such export, so no Go binary of today starts
 * under it. This DLL provides it, over RtlGenRandom (advapi32's
 * SystemFunction036, which Wine has), and is copied into the Wine prefix's
 * system32 by .ci/wine-check. It is test scaffolding for running profdb.exe
 * under Wine in CI, never shipped. See docs/testing.md#windows-under-wine.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll \
 *          bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* ProcessPrng fills data with len random bytes. Like Windows' own, it
 * always returns TRUE: it has no way to fail but to end the process. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			ExitProcess(0xC0000001u); /* STATUS_UNSUCCESSFUL */
		data += n;
		len -= n;
	}
	return TRUE;
}
