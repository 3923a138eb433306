# For .ci/run, before the pip/pytest line: the browser tests (tests/test_html_browser.py)
# need Debian's chromium and chromium-driver; install them when missing so CI always runs
# those tests (elsewhere they skip with a one-line reason).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then apt_get="apt-get"; else apt_get="sudo apt-get"; fi
    $apt_get update -qq
    DEBIAN_FRONTEND=noninteractive $apt_get install -y -qq --no-install-recommends chromium chromium-driver
fi
