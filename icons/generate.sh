#!/bin/sh
# Regenerates the app icons from source.svg. Needs ImageMagick (`apt-get install imagemagick`).
# PNG32: forces 8-bit RGBA: Tauri rejects icons without an alpha channel.
# Sizes: the hicolor theme's usual ones, so a desktop shows a drawn icon at each size instead of a scaled one:
# 16..64 for menus and panels, 128/256/512 for launchers. 128x128@2x.png (also 256 px) is Tauri's HiDPI name, kept for
# other bundle formats; the .deb takes 256x256.png (its bundler would file the @2x one under a non-standard
# hicolor/256x256@2 directory).
set -eu
cd "$(dirname "$0")"
for spec in 16:16x16.png 24:24x24.png 32:32x32.png 48:48x48.png 64:64x64.png 128:128x128.png \
            256:128x128@2x.png 256:256x256.png 512:icon.png; do
  size=${spec%%:*}
  out=${spec#*:}
  convert -background none -density 384 source.svg -resize "${size}x${size}" -strip "PNG32:$out"
done
