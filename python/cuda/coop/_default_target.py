"""The architecture compiles target where no GPU answers (coop.explain, kernel.compile on a
machine without one, the coop tool's --arch default): sm_90, the H100/H200 generation."""

DEFAULT_CAPABILITY = (9, 0)
DEFAULT_ARCH = f"sm_{DEFAULT_CAPABILITY[0]}{DEFAULT_CAPABILITY[1]}"
