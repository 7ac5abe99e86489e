
TEST_CASE("enum workers: --timeout stops the workers' jobs too", "[enum][workers]") {
  const LitmusTest t = parse_litmus(iriw(8), "iriw.litmus");  // 65,536 outcomes: 0.1 s
  for (unsigned w : {1u, 2u, 4u}) {
    INFO(w << " workers");
    const Budget budget(BudgetLimits{1e-4, 0});
    EngineOptions o;
    o.observe_all = true;
    o.max_outcomes = 100000;
    o.workers = w;
    o.budget = &budget;
    CHECK_THROWS_AS(run_enum(t, o), BudgetExceeded);
  }
}
