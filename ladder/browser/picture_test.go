package browser_test

import (
	"fmt"
	"image"
	"image/color"
	"slices"
)

// heatShades are the heat map's shades, h1 (one pod) to h8 (the most),
// as the page's style draws them.
var heatShades = []color.RGBA{
	{0xed, 0xf8, 0xb1, 0xff}, {0xc7, 0xe9, 0xb4, 0xff}, {0x7f, 0xcd, 0xbb, 0xff}, {0x41, 0xb6, 0xc4, 0xff},
	{0x1d, 0x91, 0xc0, 0xff}, {0x22, 0x5e, 0xa8, 0xff}, {0x25, 0x34, 0x94, 0xff}, {0x08, 0x1d, 0x58, 0xff},
}

// What a drawn page's first screen must have: no colour on more than
// maxOneColour of it (a blank page is one colour), at least minColours
// colours (text, borders, shades), and of the heat map's shades at least
// minShades, each on at least minShadePixels pixels (a cell is about
// 30 × 24).
const (
	maxOneColour   = 0.97
	minColours     = 16
	minShades      = 2
	minShadePixels = 200
)

func near(c color.RGBA, d color.RGBA) bool {
	diff := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
	return diff(c.R, d.R) <= 4 && diff(c.G, d.G) <= 4 && diff(c.B, d.B) <= 4
}

// checkPicture fails a screenshot that is blank, nearly so, or shows no
// heat map.
func checkPicture(img image.Image) error {
	b := img.Bounds()
	total := b.Dx() * b.Dy()
	if total == 0 {
		return fmt.Errorf("an empty screenshot")
	}
	counts := map[color.RGBA]int{}
	shades := make([]int, len(heatShades))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			counts[c]++
			for k, s := range heatShades {
				if near(c, s) {
					shades[k]++
				}
			}
		}
	}
	top, topColour := 0, color.RGBA{}
	for c, n := range counts {
		if n > top {
			top, topColour = n, c
		}
	}
	if f := float64(top) / float64(total); f > maxOneColour {
		return fmt.Errorf("blank: %.1f%% of the screen is one colour (%v), %d colours in all", 100*f, topColour, len(counts))
	}
	if len(counts) < minColours {
		return fmt.Errorf("nearly blank: %d colours on the screen, want at least %d", len(counts), minColours)
	}
	drawn := slices.DeleteFunc(slices.Clone(shades), func(n int) bool { return n < minShadePixels })
	if len(drawn) < minShades {
		return fmt.Errorf("no heat map: pixels of each shade h1..h8 %v, want at least %d shades on %d pixels or more", shades, minShades, minShadePixels)
	}
	return nil
}
