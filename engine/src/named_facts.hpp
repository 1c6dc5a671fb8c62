// named_facts: the dtypes and extents beyond the payload's own that an operation's type
// expressions name (ValueT[N], CounterT[bins], template slots bound to them), checked
// against those a call's facts give, so nothing reaches the emitter that it cannot spell.
#pragma once

#include "coop/call_facts.hpp"
#include "coop/catalog.hpp"

namespace coop {

// Throws coop::Error naming the call and the argument when `facts` gives a named dtype or
// extent the call does not read (`form`'s template slots, the operands, the options bound),
// lacks one it reads, holds an extent out of range, or passes a complex value by value.
void check_named_facts(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form);

}  // namespace coop
