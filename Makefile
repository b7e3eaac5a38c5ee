# swurl — build, test, install. `make install` and `make test` are the only set-up commands.
PREFIX ?= /usr/local
SWIFT ?= swift
VENV := .build/venv
RELEASE_BIN := .build/release/swurl
DEBUG_BIN := .build/debug/swurl
# Debian packages: build (libcurl, OpenSSL, readline, zlib headers, pkg-config) and tests (openssl, nginx, curl, jq;
# bsdutils for `script`, which runs swurl on a pseudo-terminal; iproute2 for the network namespaces of the reach tests; time for peak RSS in the hostile-server tests; chromium, headless, for the batch HTML report tests; strace, to show the reach test makes no connect).
BUILD_PACKAGES := libcurl4-openssl-dev libssl-dev libreadline-dev zlib1g-dev pkg-config
TEST_PACKAGES := openssl nginx-light curl jq bsdutils iproute2 time chromium strace

.PHONY: all build build-info release-binary deb deps test-deps venv test install uninstall man completions bench fuzz clean

all: build

# Installs what is missing with apt-get; does nothing when all is there.
deps:
	@scripts/apt-ensure $(BUILD_PACKAGES)

test-deps: deps
	@scripts/apt-ensure $(TEST_PACKAGES)
	@python3 -c 'import venv, ensurepip' 2>/dev/null || scripts/apt-ensure python3 python3-venv

# A release build only builds: it installs nothing (`make deps` does, and install and test call it).
build: release-binary

# The commit for `swurl --version` (Sources/CBuildInfo/commit.h, git-ignored; the version itself
# is the VERSION file, compiled in by CBuildInfo). Rewritten only when HEAD moved.
build-info:
	@scripts/build-info

# The release link's extra steps (static libstdc++ and libgcc unwinder, the start-up order, the
# _StringProcessing guard) are in scripts/release-binary, one comment each.
release-binary: build-info
	@SWIFT=$(SWIFT) scripts/release-binary

# The Python venv with httpbin and gunicorn (pinned in Tests/requirements.txt).
venv: $(VENV)/.installed

$(VENV)/.installed: Tests/requirements.txt
	@command -v python3 >/dev/null || scripts/apt-ensure python3 python3-venv
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r Tests/requirements.txt
	touch $@

# How many integration test classes run at once, each in a process of its own. The tests mostly
# wait on their servers and processes, and each starts its own servers (on ports they bind
# themselves) in its own directories, so the classes run in parallel processes, more than the
# cores (TEST_WORKERS=1: one at a time, for a failure that needs a quiet machine).
TEST_WORKERS ?= 6

# Both builds at once (the tests unoptimised in .build/tests, the release binary in .build), the
# whole suite against the release binary, the serializers again against the unoptimised binary,
# and the Debian package with its test: scripts/run-tests says what runs beside what (the venv
# beside the builds; the package and lintian beside the suite; one httpbin for all tests).
test: test-deps build-info
	@SWIFT=$(SWIFT) MAKE=$(MAKE) TEST_WORKERS=$(TEST_WORKERS) scripts/run-tests

man completions: deps build-info
	$(SWIFT) build --product swurl
	$(DEBUG_BIN) --generate man > man/swurl.1
	$(DEBUG_BIN) --generate bash > completions/swurl.bash
	$(DEBUG_BIN) --generate zsh > completions/_swurl
	$(DEBUG_BIN) --generate fish > completions/swurl.fish
	scripts/readme-exit-status $(DEBUG_BIN)

# Where zsh finds completions: Debian's zsh looks in /usr/share/zsh/vendor-completions under /usr
# (its site-functions there are not on $fpath) and in PREFIX/share/zsh/site-functions elsewhere.
ZSH_COMPLETIONS = $(if $(filter /usr /usr/,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)

# The binary stripped as the package's is (symbols only), the man page, the completions and the
# user documentation (README.md and docs/, laid out as in the repository so the links between
# them work, the man page's pointing at the installed one, as scripts/make-deb does; README's
# links to CONTRIBUTING.md, LICENSE and CHANGELOG.md are the source tree's).
install: deps
	@$(MAKE) --no-print-directory build
	install -D -m 755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/swurl
	strip --strip-unneeded --remove-section=.comment --remove-section=.note $(DESTDIR)$(PREFIX)/bin/swurl
	install -D -m 644 man/swurl.1 $(DESTDIR)$(PREFIX)/share/man/man1/swurl.1
	install -D -m 644 completions/swurl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/swurl
	install -D -m 644 completions/_swurl $(DESTDIR)$(ZSH_COMPLETIONS)/_swurl
	install -D -m 644 completions/swurl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/swurl.fish
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/doc/swurl README.md
	for f in docs/*.md; do \
	  install -D -m 644 /dev/null $(DESTDIR)$(PREFIX)/share/doc/swurl/$$f; \
	  sed -e 's#](\.\./man/swurl\.1)#](../../../man/man1/swurl.1)#g' $$f > $(DESTDIR)$(PREFIX)/share/doc/swurl/$$f; \
	done
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/doc/swurl/docs/images docs/images/*

# Removes what `make install` installed (same PREFIX and DESTDIR).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/swurl $(DESTDIR)$(PREFIX)/share/man/man1/swurl.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/swurl $(DESTDIR)$(ZSH_COMPLETIONS)/_swurl \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/swurl.fish
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/swurl

# swurl_PKGVERSION_ARCH.deb in the top directory (VERSION, with +gitTIME.COMMIT unless a release:
# scripts/package-version; scripts/make-deb: staged tree, dpkg-shlibdeps, dpkg-deb, lintian),
# from the release binary.
deb: deps
	@$(MAKE) --no-print-directory build
	@scripts/make-deb

# HTTPie for side-by-side numbers lives in its own venv (never on the test path).
HTTPIE_VENV := .build/httpie

$(HTTPIE_VENV)/.installed:
	python3 -m venv $(HTTPIE_VENV)
	$(HTTPIE_VENV)/bin/pip install --quiet --disable-pip-version-check httpie==3.2.4
	touch $@

bench: test-deps venv $(HTTPIE_VENV)/.installed
	@$(MAKE) --no-print-directory build
	@scripts/apt-ensure time
	scripts/bench

# libFuzzer + AddressSanitizer targets in Fuzz/ (a separate package `make test` never builds),
# each run FUZZ_SECONDS (default 60) from Fuzz/corpus/<target>; prints a table per target.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) scripts/fuzz

clean:
	rm -rf .build
