"""The value inspector screen: a FULL_TENSOR tensor's numbers, statistics and histogram."""
