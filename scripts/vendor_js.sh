#!/usr/bin/env bash
# Re-create book/_static/vendor/: the JavaScript the website serves itself, so it works offline.
#
#   bash scripts/vendor_js.sh           # (re)write book/_static/vendor/
#   bash scripts/vendor_js.sh --check   # rebuild in a temp dir; fail if it differs from the committed copy
#
# Needs node and npm (the npm registry is the only network access). Each package is fetched with
# `npm pack <pkg>@<version>` and its tarball's sha512 must equal BOTH the integrity pinned below AND
# `npm view <pkg>@<version> dist.integrity`; otherwise the script stops before writing anything.
#
# What is vendored (and why), relative to book/_static/vendor/:
#   require.min.js, require.LICENSE.txt
#       RequireJS, needed by the ipywidgets embed manager. The npm tarball ships only the unminified
#       require.js; it is minified with the r.js optimizer from the same tarball (deterministic).
#       The tarball has no licence file; require.LICENSE.txt is the LICENSE of requirejs/requirejs at
#       tag 2.3.8 (written out below).
#   html-manager/embed-amd.js, html-manager/*.woff2, html-manager/setup.js, html-manager/*LICENSE*
#       @jupyter-widgets/html-manager 1.0.x (ipywidgets 8 widget models, protocol base/controls 2.0.0,
#       output 1.0.0). embed-amd.js bundles @jupyter-widgets/base, controls and output (and their
#       ipywidgets-7 versions), so no widget module is fetched from a CDN for core widgets. The woff2
#       files are the Font Awesome 5 fonts its CSS references (browsers pick woff2 first; the
#       eot/woff/ttf/svg fallbacks are left out). setup.js (written here; _config.yml loads it
#       between require.min.js and embed-amd.js via nb_ipywidgets_js) makes the manager look for
#       those fonts in this folder, not next to the page, and maps its MathJax 2 call for widget
#       labels onto MathJax 3. LICENSE is the ipywidgets licence (BSD-3-Clause),
#       THIRD-PARTY-LICENSES.txt the bundle's preserved notices, FONTAWESOME-LICENSE.txt Font Awesome's.
#   mathjax/tex-mml-chtml.js, mathjax/output/chtml/fonts/woff-v2/*.woff, mathjax/input/tex/extensions/
#       MathJax 3 (es5 build) with its CHTML fonts. TeX extensions that MathJax autoloads at run time
#       are vendored only if listed in MATHJAX_TEX_EXTENSIONS: add a name there when a chapter uses,
#       e.g., \boldsymbol (boldsymbol), \cancel (cancel), \coloneqq (mathtools), then re-run.
#       (tests/test_browser.py fails on the 404 of an extension a page needs but that is missing.)
#   VERSIONS.txt: packages, versions, integrities and a sha256 of every vendored file.
set -euo pipefail

REQUIREJS_VERSION=2.3.8
REQUIREJS_INTEGRITY=sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==
HTML_MANAGER_VERSION=1.0.15
HTML_MANAGER_INTEGRITY=sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==
MATHJAX_VERSION=3.2.2
MATHJAX_INTEGRITY=sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==
# Only for its LICENSE.txt (the version bundled in embed-amd.js).
FONTAWESOME_VERSION=5.15.4
FONTAWESOME_INTEGRITY=sha512-eYm8vijH/hpzr/6/1CJ/V/Eb1xQFW2nnUKArb3z+yUWv7HTwj6M7SP957oMjfZjAHU6qpoNc2wQvIxBLWYa/Jg==
# MathJax TeX extensions loaded at run time by \autoload (tex-mml-chtml.js already contains
# base, ams, newcommand, noundefined, require, autoload, configmacros).
MATHJAX_TEX_EXTENSIONS=()

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/book/_static/vendor"
MODE="${1:-write}"
case "$MODE" in write | --check) ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac

for tool in node npm tar; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export NPM_CONFIG_LOGLEVEL=error NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false

sri_sha512() {  # the npm-style integrity string of a file
    node -e 'const c=require("crypto"),f=require("fs");
             process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

fetch() {  # fetch NAME VERSION PINNED_INTEGRITY -> unpacked into $WORK/<name>/package
    local name="$1" version="$2" pinned="$3" dir tgz actual registry
    dir="$WORK/${name//\//_}"
    mkdir -p "$dir"
    tgz="$(cd "$dir" && npm pack --silent "$name@$version" | tail -n 1)"
    actual="$(sri_sha512 "$dir/$tgz")"
    registry="$(npm view "$name@$version" dist.integrity)"
    if [[ "$actual" != "$pinned" || "$actual" != "$registry" ]]; then
        printf 'error: integrity mismatch for %s@%s\n  tarball:  %s\n  pinned:   %s\n  registry: %s\n' \
            "$name" "$version" "$actual" "$pinned" "$registry" >&2
        exit 1
    fi
    tar -xzf "$dir/$tgz" -C "$dir"
    echo "$name@$version $actual" >>"$WORK/versions"
    echo "fetched $name@$version (integrity ok)" >&2
}

fetch requirejs "$REQUIREJS_VERSION" "$REQUIREJS_INTEGRITY"
fetch @jupyter-widgets/html-manager "$HTML_MANAGER_VERSION" "$HTML_MANAGER_INTEGRITY"
fetch mathjax "$MATHJAX_VERSION" "$MATHJAX_INTEGRITY"
fetch @fortawesome/fontawesome-free "$FONTAWESOME_VERSION" "$FONTAWESOME_INTEGRITY"

OUT="$WORK/vendor"
mkdir -p "$OUT/html-manager" "$OUT/mathjax/output/chtml/fonts/woff-v2"

# --- RequireJS -------------------------------------------------------------------------------
RJS="$WORK/requirejs/package"
(cd "$RJS" && node bin/r.js -o name=requireLib paths.requireLib=require baseUrl=. \
    skipModuleInsertion=true out="$OUT/require.min.js" >/dev/null)
cat >"$OUT/require.LICENSE.txt" <<'EOF'
RequireJS 2.3.8 -- LICENSE of https://github.com/requirejs/requirejs at tag 2.3.8
(the npm tarball ships no licence file; package.json says "license": "MIT").

Copyright jQuery Foundation and other contributors, https://jquery.org/

This software consists of voluntary contributions made by many
individuals. For exact contribution history, see the revision history
available at https://github.com/requirejs/requirejs

The following license applies to all parts of this software except as
documented below:

====

Permission is hereby granted, free of charge, to any person obtaining
a copy of this software and associated documentation files (the
"Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to
the following conditions:

The above copyright notice and this permission notice shall be
included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE
LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION
OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

====

Copyright and related rights for sample code are waived via CC0. Sample
code is defined as all source code displayed within the prose of the
documentation.

CC0: http://creativecommons.org/publicdomain/zero/1.0/

====

Files located in the node_modules directory, and certain utilities used
to build or test the software in the test and dist directories, are
externally maintained libraries used by this software which have their own
licenses; we recommend you read them, as their terms may differ from the
terms above.
EOF

# --- @jupyter-widgets/html-manager -----------------------------------------------------------
HM="$WORK/@jupyter-widgets_html-manager/package/dist"
cp "$HM/embed-amd.js" "$OUT/html-manager/"
for module in @jupyter-widgets/base @jupyter-widgets/controls @jupyter-widgets/html-manager; do
    grep -q "define(\"$module\"" "$HM/embed-amd.js" || { echo "error: embed-amd.js lacks $module" >&2; exit 1; }
done
grep -q 'OutputModel' "$HM/embed-amd.js" || { echo "error: embed-amd.js lacks the output widget" >&2; exit 1; }
fonts="$(grep -o '[0-9a-f]\{20\}\.woff2' "$HM/embed-amd.js" | sort -u)"
[[ -n "$fonts" ]] || { echo "error: no woff2 fonts referenced by embed-amd.js" >&2; exit 1; }
for font in $fonts; do cp "$HM/$font" "$OUT/html-manager/"; done
cat >"$OUT/html-manager/setup.js" <<'EOF'
// Written by scripts/vendor_js.sh (not part of any npm package). Load it after require.min.js and
// before embed-amd.js; it adapts the ipywidgets HTML manager to a site that serves everything itself.
(function () {
  // 1. Each bundle in embed-amd.js finds its assets (the Font Awesome fonts its CSS declares) next to
  //    the RequireJS URL of its own module, by default relative to the page: two bundles declare the
  //    fonts, "@jupyter-widgets/html-manager/dist/libembed-amd" and "@jupyter-widgets/html-manager",
  //    and a page that lays out an icon after the second's CSS is in asks for
  //    <page folder>/@jupyter-widgets/<font> (a 404). Point every bundle's URL, and the manager's
  //    assets path, at this folder, where the fonts are vendored.
  var here = document.currentScript.src.replace(/[?#].*$/, "").replace(/[^/]*$/, "");
  window.__jupyter_widgets_assets_path__ = here;
  var paths = {};
  ["base", "controls", "base7", "controls7", "html-manager", "html-manager/dist/libembed-amd"].forEach(
    function (name) { paths["@jupyter-widgets/" + name] = here + name.replace(/.*\//, ""); });
  window.require.config({ paths: paths });

  // 2. ipywidgets typesets widget labels with the MathJax 2 call MathJax.Hub.Queue(["Typeset", hub, el]);
  //    the book loads MathJax 3, which has no Hub. Map that call onto MathJax 3's typesetPromise,
  //    after turning Jupyter's $...$ and $$...$$ in a plain-text label into \(...\) and \[...\]
  //    (the delimiters of the book's MathJax 3). Installed on "load", which comes after MathJax (a
  //    deferred script) and before the manager renders widgets (it waits for "load" too, and
  //    registers its listener after this one).
  function texDelimiters(element) {
    if (element.childElementCount === 0 && element.textContent.indexOf("$") >= 0) {
      element.textContent = element.textContent
        .replace(/\$\$([^$]+)\$\$/g, "\\[$1\\]")
        .replace(/\$([^$]+)\$/g, "\\($1\\)");
    }
    return element;
  }
  window.addEventListener("load", function () {
    var mj = window.MathJax;
    if (!mj || mj.Hub || !mj.startup) return;
    mj.Hub = {
      Queue: function () {
        var elements = [];
        Array.prototype.forEach.call(arguments, function (call) {
          if (Array.isArray(call) && call[0] === "Typeset" && call[2]) elements.push(texDelimiters(call[2]));
        });
        if (elements.length) {
          mj.startup.promise
            .then(function () { return mj.typesetPromise(elements); })
            .catch(function (err) { console.warn("MathJax could not typeset a widget label:", err); });
        }
      },
    };
  });
})();
EOF
cp "$HM/embed.js.LICENSE.txt" "$OUT/html-manager/THIRD-PARTY-LICENSES.txt"
cp "$WORK/@fortawesome_fontawesome-free/package/LICENSE.txt" "$OUT/html-manager/FONTAWESOME-LICENSE.txt"
cat >"$OUT/html-manager/LICENSE" <<'EOF'
Copyright (c) 2015 Project Jupyter Contributors
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
EOF

# --- MathJax ---------------------------------------------------------------------------------
MJ="$WORK/mathjax/package"
cp "$MJ/es5/tex-mml-chtml.js" "$MJ/LICENSE" "$OUT/mathjax/"
cp "$MJ"/es5/output/chtml/fonts/woff-v2/*.woff "$OUT/mathjax/output/chtml/fonts/woff-v2/"
for ext in "${MATHJAX_TEX_EXTENSIONS[@]}"; do
    mkdir -p "$OUT/mathjax/input/tex/extensions"
    cp "$MJ/es5/input/tex/extensions/$ext.js" "$OUT/mathjax/input/tex/extensions/"
done

# --- manifest --------------------------------------------------------------------------------
{
    echo "# Written by scripts/vendor_js.sh -- do not edit; re-run the script instead."
    echo "# npm packages (name@version integrity):"
    sed 's/^/#   /' "$WORK/versions"
    echo "# sha256 of every vendored file:"
    (cd "$OUT" && find . -type f ! -name VERSIONS.txt | LC_ALL=C sort | xargs sha256sum)
} >"$OUT/VERSIONS.txt"

if [[ "$MODE" == --check ]]; then
    if diff -r "$OUT" "$DEST" >/dev/null; then
        echo "ok: $DEST matches the pinned npm packages"
    else
        diff -rq "$OUT" "$DEST" >&2 || true
        echo "error: $DEST differs from what scripts/vendor_js.sh produces" >&2
        exit 1
    fi
else
    rm -rf "$DEST"
    mkdir -p "$(dirname "$DEST")"
    cp -r "$OUT" "$DEST"
    echo "wrote $DEST ($(du -sh "$DEST" | cut -f1))"
fi
