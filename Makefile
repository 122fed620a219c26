# The README's two commands: `make demo` and `make test`. Everything else is a building block.
JOBS ?= $(shell nproc)
DEMO_TREE ?= /usr/include
DEMO_PATTERN ?= struct stat\b

.PHONY: demo test deps release asan-ubsan tsan fuzz bench format tidy clean

deps:
	@bash scripts/install-deps.sh

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The asan-ubsan preset turns off -Wmaybe-uninitialized: GCC 12 reports false positives under ASan
# (inside std::function, used by Catch2). It builds with -g1: line tables are all ASan's stack traces
# need (file:line per frame), and full -g costs over a third more compile time under ASan.
asan-ubsan: deps
	@cmake --preset asan-ubsan >/dev/null
	@cmake --build --preset asan-ubsan -j $(JOBS)

tsan: deps
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS)

fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)

# Build Release and search a real tree beside rg, then show what the agent tools give a model.
demo: release
	@bash scripts/demo.sh build/release/ctxsearch "$(DEMO_TREE)" '$(DEMO_PATTERN)'

# Release tests, then the same tests under ASan+UBSan; ctest prints the summary line last.
test: release asan-ubsan
	@ctest --preset release -j $(JOBS)
	@ctest --preset asan-ubsan -j $(JOBS)

format:
	@git ls-files '*.cpp' '*.hpp' | xargs clang-format -i

tidy: release
	@git ls-files '*.cpp' | grep -v '^tests/fuzz/' | xargs clang-tidy -p build/release --quiet --extra-arg=-Wno-unknown-warning-option

clean:
	rm -rf build
