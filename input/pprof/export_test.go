package pprof

// ChunkBytes is chunkBytes, for the tests.
const ChunkBytes = chunkBytes
