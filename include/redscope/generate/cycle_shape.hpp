// The execution a cycle describes (src/generate/cycle*.cpp, and the writer
// of a language a dialect registers, CycleLanguage): events with their
// thread, location, annotation and value, the threads' placements, and the
// condition that witnesses the cycle.
#pragma once

#include <string>
#include <vector>

#include "redscope/generate/cycle.hpp"

namespace redscope::generate::detail {

struct Event {
  Dir dir = Dir::R;
  int thread = 0;
  int loc = 0;
  std::string sem;     // weak | relaxed | acquire | release
  std::string scope;   // empty for weak
  int value = 0;       // writes: 1, 2, ... in coherence order per location
  int rf_src = -1;     // reads: the event an Rf edge brings the value from
  int rmw_write = -1;  // the read of an Rmw: its write's event
  bool rmw_part = false;
};

struct Placement {
  int gpu = 0, cluster = 0, cta = 0;
};

// What the condition asks of one read (its register == value) or of a
// location's final value.
struct Observation {
  int event = -1;  // a read; -1 for a final value or an observer's load
  int loc = -1;
  int value = 0;
  int observer = -1;  // an observer thread's load: its index in Shape::observers
  int reg = -1;       // and its register, r<reg>
};

// An observer thread (diy7's straight observer, gen/top_gen.ml): it loads
// `loc` once per write to it, into r0, r1, ...; the condition asks it to
// read 1, 2, ... (the writes' values in coherence order).
struct ObserverThread {
  int thread = 0;
  int loads = 0;
  Event load;  // each of its loads: a read of the location at --sem's annotation
};

struct Shape {
  std::vector<Edge> edges;  // normalised: edge i goes from event i to event i+1
  std::vector<Event> events;
  int threads = 0;
  int locations = 0;
  std::vector<Space> spaces;              // per location
  std::vector<Level> levels;              // per edge (meaningful for external edges)
  std::vector<Placement> placements;      // per thread
  bool clusters = false;                  // some cluster holds two CTAs: name every cluster
  std::vector<Observation> condition;     // in event order, final values, observers
  std::vector<ObserverThread> observers;  // threads after the cycle's (CycleOptions::obs)
};

// Resolves, checks and normalises a cycle (cycle_shape.cpp); InputError at
// `source`:1:column naming the edge.
Shape build_shape(const std::vector<Edge>& cycle, const CycleOptions& options,
                  const std::string& source);

// The indices of the events that start a thread in diy's sense (after an
// external edge; after an internal communication edge when none is external).
std::vector<std::size_t> proc_starts(const std::vector<Edge>& edges);

// The test's text and name (cycle_emit.cpp).
GeneratedTest emit_test(const Shape& shape, const CycleOptions& options);

std::string location_name(int loc);

// An exchange's .sem from its read's and write's (cycle_emit.cpp).
std::string atom_sem(const Event& read, const Event& write);

}  // namespace redscope::generate::detail
