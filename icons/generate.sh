#!/bin/sh
# Regenerates the app icons from source.svg. Needs ImageMagick (`apt-get install imagemagick`).
# PNG32: forces 8-bit RGBA: Tauri rejects icons without an alpha channel.
set -eu
cd "$(dirname "$0")"
for spec in 32:32x32.png 128:128x128.png 256:128x128@2x.png 512:icon.png; do
  size=${spec%%:*}
  out=${spec#*:}
  convert -background none -density 384 source.svg -resize "${size}x${size}" -strip "PNG32:$out"
done
