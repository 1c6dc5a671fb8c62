namespace coop_adapt {
// A CUB TempStorage with room for the call's result beside it: a block result is
// broadcast by its first thread writing it here and every thread reading it after a
// barrier. Beside, not overlapping, so no thread still inside CUB's collective can
// see its scratch overwritten.
template <typename TempStorage, typename T>
struct WithResult {
  TempStorage storage;
  T result;
};
}  // namespace coop_adapt
