# The README's library example, built against the public headers only, on a
# real run: its figure must equal the one read back from the bundle the CLI
# publishes for the same inputs.
set(R ${ETP_FIXTURES}/real-runs)
add_test(NAME examples.analyze_and_read
         COMMAND sh -c "[ -d '${R}' ] || { echo 'SKIP: ${R} is absent'; exit 77; }
                        out=$(mktemp -d) && trap 'rm -rf \"$out\"' EXIT &&
                        \"$1\" analyze --etdump '${R}/xnn_np_add_x10.etdp' --pte '${R}/xnn_np_add_x10.pte' -o \"$out/b\" --quiet &&
                        \"$2\" '${R}/xnn_np_add_x10.etdp' '${R}/xnn_np_add_x10.pte' \"$out/b\" > \"$out/o\" && cat \"$out/o\" &&
                        a=$(sed -n 's/^Method::execute avg \\([0-9.]*\\) ms over 10 executions$/\\1/p' \"$out/o\") &&
                        b=$(sed -n 's/^bundle: degraded, method_execute.avg = \\([0-9.]*\\) ms$/\\1/p' \"$out/o\") &&
                        [ -n \"$a\" ] && [ -n \"$b\" ] &&
                        awk -v a=\"$a\" -v b=\"$b\" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 5e-7) }'"
                 sh $<TARGET_FILE:etprof_cli> $<TARGET_FILE:analyze_and_read>)
set_tests_properties(examples.analyze_and_read PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
