#!/usr/bin/env python3
"""Renders the photo-like sample shelf JPEGs in SampleImages/ with one ground-truth JSON each.

    python3 scripts/generate_sample_images.py [--out SampleImages]

Deterministic (fixed seeds). Needs Pillow and numpy (`pip install pillow numpy`) and the fonts Debian
ships in fonts-dejavu-core and fonts-liberation (scripts/bootstrap installs them). Titles and authors of
public-domain books are drawn in those fonts in every orientation (top to bottom, bottom to top, and
horizontal on wide standing spines and lying books). The ground truth uses the same fields as
../shared/eval (width, height, rows[].interior_polygon, books[].box/polygon/pose, and per book title,
author, title_drawn, author_drawn, orientation, title_font_px), in the coordinates of the image as a
viewer shows it (after EXIF orientation).
"""
import argparse
import json
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

PALETTE = [(150, 30, 30), (30, 70, 130), (40, 110, 60), (200, 170, 60), (90, 40, 100), (220, 220, 205),
           (30, 30, 35), (190, 90, 40), (70, 140, 150), (120, 80, 50), (200, 120, 140), (100, 110, 40)]


FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation"]
FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
         "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf"]

BOOKS = [("Moby-Dick", "Melville"), ("Emma", "Austen"), ("Middlemarch", "Eliot"), ("Dracula", "Stoker"),
         ("Persuasion", "Austen"), ("Ulysses", "Joyce"), ("Walden", "Thoreau"), ("Kidnapped", "Stevenson"),
         ("The Odyssey", "Homer"), ("Frankenstein", "Shelley"), ("Candide", "Voltaire"), ("Ivanhoe", "Scott"),
         ("Jane Eyre", "Bronte"), ("Little Women", "Alcott"), ("Great Expectations", "Dickens"), ("Hard Times", "Dickens"),
         ("The Time Machine", "Wells"), ("Treasure Island", "Stevenson"), ("Heart of Darkness", "Conrad"),
         ("Silas Marner", "Eliot"), ("Vanity Fair", "Thackeray"), ("Don Quixote", "Cervantes"), ("Beowulf", None),
         ("The Iliad", "Homer"), ("Robinson Crusoe", "Defoe"), ("Northanger Abbey", "Austen"), ("Oliver Twist", "Dickens"),
         ("The Jungle Book", "Kipling"), ("War and Peace", "Tolstoy"), ("Anna Karenina", "Tolstoy"), ("Walden", None),
         ("Bleak House", "Dickens"), ("Lord Jim", "Conrad"), ("Nostromo", "Conrad"), ("Sense and Sensibility", "Austen"),
         ("The Red Badge of Courage", "Crane"), ("Wuthering Heights", "Bronte"), ("Kim", "Kipling"), ("Tom Jones", "Fielding"),
         ("Pamela", "Richardson"), ("Evelina", "Burney"), ("Utopia", "More"), ("Leviathan", "Hobbes"), ("Faust", "Goethe"),
         ("The Aeneid", "Virgil"), ("Hamlet", "Shakespeare"), ("Macbeth", "Shakespeare"), ("Othello", "Shakespeare")]


def font(name, size):
    for d in FONT_DIRS:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    raise SystemExit(f"font {name} not found: install fonts-dejavu-core and fonts-liberation (scripts/bootstrap)")


def text_image(text, fnt, fill):
    """The text on a transparent tile, cropped to its ink."""
    x0, y0, x1, y1 = fnt.getbbox(text)
    tile = Image.new("RGBA", (x1 - x0 + 2, y1 - y0 + 2), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((1 - x0, 1 - y0), text, font=fnt, fill=fill + (255,))
    return tile


def letter_spine(img, rng, x0, y0, x1, y1, color, lying=False):
    """Draws a title (and an author when it fits) on the spine; returns the ground-truth fields."""
    x0, y0, x1, y1 = int(x0), int(y0), int(x1), int(y1)
    w, h = x1 - x0 + 1, y1 - y0 + 1
    across, along = (h, w) if lying else (w, h)
    title, author = rng.choice(BOOKS)
    ink = (240, 236, 222) if sum(color) < 380 else (25, 22, 18)
    name = rng.choice(FONTS)
    upper = rng.random() < 0.35
    title_text = title.upper() if upper else title
    horizontal = not lying and w >= 40 and rng.random() < 0.3
    if horizontal:
        # short lines across a wide standing spine
        size = max(9, int(w * rng.uniform(0.16, 0.22)))
        fnt = font(name, size)
        lines, line = [], ""
        for word in title_text.split():
            trial = (line + " " + word).strip()
            if fnt.getlength(trial) <= w * 0.86 or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
        tiles = [text_image(t, fnt, ink) for t in lines]
        block_h = sum(t.height for t in tiles) + size // 3 * (len(tiles) - 1)
        if max(t.width for t in tiles) > w - 2 or block_h > h * 0.6:
            return {"title": title, "author": author, "title_drawn": False, "author_drawn": False, "orientation": "horizontal"}
        y = y0 + int(h * 0.12)
        for t in tiles:
            img.paste(t, (x0 + (w - t.width) // 2, y), t)
            y += t.height + size // 3
        return {"title": title, "author": author, "title_drawn": True, "author_drawn": False, "orientation": "horizontal",
                "title_font_px": size, "title_lines": lines}
    size = max(10, int(across * rng.uniform(0.42, 0.58)))
    fnt = font(name, size)
    tile = text_image(title_text, fnt, ink)
    author_tile = None
    if author and tile.width + fnt.getlength(author) * 0.75 + size * 2 < along * 0.9:
        author_tile = text_image(author.upper() if upper else author, font(name, max(9, int(size * 0.7))), ink)
    if tile.width > along * 0.9 or tile.height > across - 2:
        return {"title": title, "author": author, "title_drawn": False, "author_drawn": False,
                "orientation": "horizontal" if lying else "vertical_tb"}
    bottom_to_top = not lying and rng.random() < 0.3
    rotate = 0 if lying else (270 if not bottom_to_top else 90)  # PIL turns counter-clockwise
    orientation = "horizontal" if lying else ("vertical_bt" if bottom_to_top else "vertical_tb")
    start = int(along * rng.uniform(0.06, 0.15))
    pieces = [tile] + ([author_tile] if author_tile else [])
    gap = size * 2
    pos = start
    for piece in pieces:
        turned = piece.rotate(rotate, expand=True) if rotate else piece
        if lying:
            img.paste(turned, (x0 + pos, y0 + (h - turned.height) // 2), turned)
        elif bottom_to_top:
            img.paste(turned, (x0 + (w - turned.width) // 2, y1 - pos - turned.height), turned)
        else:
            img.paste(turned, (x0 + (w - turned.width) // 2, y0 + pos), turned)
        pos += piece.width + gap
    return {"title": title, "author": author, "title_drawn": True, "author_drawn": author_tile is not None,
            "orientation": orientation, "title_font_px": size, "title_lines": [title_text]}


def jitter(color, rng, amount=18):
    return tuple(max(0, min(255, c + rng.randint(-amount, amount))) for c in color)


def draw_spine(draw, rng, x0, y0, x1, y1, color):
    draw.rectangle([x0, y0, x1, y1], fill=color)
    w = x1 - x0
    # shading towards both edges, like a rounded spine
    for k in range(max(1, w // 6)):
        shade = tuple(int(c * (0.75 + 0.25 * k / max(1, w // 6))) for c in color)
        draw.line([x0 + k, y0, x0 + k, y1], fill=shade)
        draw.line([x1 - k, y0, x1 - k, y1], fill=shade)
    # decorative bands near the ends (the lettering goes between them)
    if rng.random() < 0.7 and y1 - y0 > 60:
        band = jitter((230, 200, 120), rng)
        for by in (y0 + 4, y1 - 8):
            draw.rectangle([x0 + 2, by, x1 - 2, by + 3], fill=band)


def render(spec, rng):
    width, height = spec["size"]
    img = Image.new("RGB", (width, height), (200, 196, 188))
    draw = ImageDraw.Draw(img)
    margin_x, margin_y = int(width * 0.05), int(height * 0.04)
    frame = (130, 90, 50) if not spec.get("dark") else (60, 35, 25)
    back = (70, 50, 35) if not spec.get("dark") else (30, 20, 16)
    draw.rectangle([margin_x, margin_y, width - margin_x, height - margin_y], fill=frame)
    side = int(width * 0.025)
    board = int(height * 0.035)
    rows = spec["rows"]
    inner_top = margin_y + board
    inner_bottom = height - margin_y - board
    row_height = (inner_bottom - inner_top - board * (rows - 1)) / rows
    books, row_meta = [], []
    for r in range(rows):
        top = inner_top + r * (row_height + board)
        bottom = top + row_height
        left, right = margin_x + side, width - margin_x - side
        draw.rectangle([left, top, right, bottom], fill=back)
        row_meta.append({"index": r, "interior_polygon": [[left, top], [right, top], [right, bottom], [left, bottom]]})
        x = left + rng.randint(4, 30)
        n = 0
        while x < right - 20:
            kind = rng.random()
            if kind < spec.get("gap_rate", 0.04) and n > 0:
                x += rng.randint(20, 60)
                continue
            if kind > 0.97 and spec.get("lying", False) and right - x > 160:
                # a short stack of lying books
                depth = rng.randint(110, 160)
                y = bottom
                for _ in range(rng.randint(2, 4)):
                    h = rng.randint(14, 26)
                    color = jitter(rng.choice(PALETTE), rng)
                    w = depth + rng.randint(-10, 10)
                    draw.rectangle([x, y - h, x + w, y - 1], fill=color)
                    lettering = letter_spine(img, rng, x, y - h, x + w, y - 1, color, lying=True)
                    books.append({"row": r, "box": [x, y - h, w, h], "pose": "lying",
                                  "polygon": [[x, y - h], [x + w, y - h], [x + w, y], [x, y]], **lettering})
                    y -= h
                x += depth + 14
                n += 1
                continue
            thin = rng.random() < 0.12
            w = rng.randint(9, 14) if thin else rng.randint(22, 52)
            w = int(w * width / 1600)
            h = int(row_height * rng.uniform(0.62, 0.95))
            color = jitter(rng.choice(PALETTE), rng)
            if kind > 0.94 and spec.get("leaning", False) and right - x > 120:
                angle = math.radians(rng.uniform(12, 20))
                base_x = x + int(h * math.sin(angle))
                pts = [(x, bottom - h * math.cos(angle)), (x + w, bottom - h * math.cos(angle) - w * math.sin(angle) * 0.2),
                       (base_x + w, bottom), (base_x, bottom)]
                pts = [(px + 0.0, py + 0.0) for px, py in pts]
                draw.polygon(pts, fill=color)
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                books.append({"row": r, "box": [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)], "pose": "leaning",
                              "polygon": [list(p) for p in pts]})
                x = int(max(xs)) + 3
                n += 1
                continue
            if x + w > right:
                break
            draw_spine(draw, rng, x, bottom - h, x + w - 1, bottom - 1, color)
            lettering = letter_spine(img, rng, x, bottom - h, x + w - 1, bottom - 1, color)
            books.append({"row": r, "box": [x, bottom - h, w, h], "pose": "upright", "thin": thin,
                          "polygon": [[x, bottom - h], [x + w, bottom - h], [x + w, bottom], [x, bottom]], **lettering})
            x += w + (1 if rng.random() < 0.8 else rng.randint(2, 6))
            n += 1
        row_meta[-1]["n_books"] = sum(1 for b in books if b["row"] == r)
    # camera: light gain, blur, noise
    img = img.filter(ImageFilter.GaussianBlur(spec.get("blur", 0.8)))
    arr = np.asarray(img).astype(np.float32) * spec.get("gain", 1.0)
    arr += np.random.default_rng(spec["seed"]).normal(0, spec.get("noise", 3.0), arr.shape)
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    for i, b in enumerate(books):
        b["id"] = i
    return img, row_meta, books


SPECS = [
    {"name": "shelf_one_row", "size": (1600, 1000), "rows": 1, "seed": 11, "gap_rate": 0.02},
    {"name": "shelf_two_rows", "size": (1600, 1200), "rows": 2, "seed": 12, "lying": True},
    {"name": "shelf_three_rows_leaning", "size": (1800, 1350), "rows": 3, "seed": 13, "leaning": True, "lying": True, "blur": 1.2},
    {"name": "shelf_dark", "size": (1600, 1200), "rows": 2, "seed": 14, "dark": True, "gain": 0.8, "noise": 5.0},
    # stored rotated with EXIF orientation 6 and a GPS position: the client must rotate it upright and strip the GPS
    {"name": "shelf_rotated_exif_gps", "size": (1400, 1050), "rows": 2, "seed": 15, "exif_orientation": 6, "gps": True},
]


def line_fixture(path, text="Great Expectations", face="DejaVuSans.ttf", size=30):
    """One title line, dark on light, for the OCR tests (they turn it to every orientation themselves)."""
    tile = text_image(text, font(face, size), (30, 28, 26))
    img = Image.new("RGB", (tile.width + 60, tile.height + 36), (226, 218, 196))
    img.paste(tile, (30, 18), tile)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, "JPEG", quality=90)
    print(f"{path}: {img.width}x{img.height}")


def grainy_fixture(path, seed=29):
    """A narrow spine's title in a grainy photo: crisp enough, but with grain (σ 9 gray levels per
    pixel, the eval set's hard tier) that Tesseract's own Otsu threshold turns into speckles and thick,
    merged strokes. The reader enlarges it ~2.7× to read it."""
    rng = np.random.default_rng(seed)
    tile = text_image("THE SONG OF THE LARK", font("LiberationSans-Bold.ttf", 13), (96, 90, 84))
    img = Image.new("RGB", (tile.width + 70, 30), (172, 164, 150))
    img.paste(tile, (24, (img.height - tile.height) // 2), tile)
    img = img.filter(ImageFilter.GaussianBlur(0.8))
    pixels = np.asarray(img).astype(np.float64)
    pixels += rng.normal(0, 9, pixels.shape[:2])[:, :, None]
    img = Image.fromarray(np.clip(np.rint(pixels), 0, 255).astype(np.uint8))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, "JPEG", quality=90)
    print(f"{path}: {img.width}x{img.height}")


def label_fixture(path):
    """A dark spine with its author in light letters and a light label with the title in dark ones: two
    polarities on one strip (the reader must not read the whole strip one way)."""
    author = text_image("Louisa May Alcott", font("DejaVuSans-Bold.ttf", 16), (222, 216, 200))
    title = text_image("Little Men", font("DejaVuSerif-Bold.ttf", 34), (34, 30, 28))
    img = Image.new("RGB", (30 + author.width + 40 + title.width + 60 + 40, title.height + 44), (52, 50, 58))
    label_x = 30 + author.width + 40
    ImageDraw.Draw(img).rectangle((label_x, 6, label_x + title.width + 60, img.height - 7), fill=(214, 210, 204))
    img.paste(author, (30, (img.height - author.height) // 2), author)
    img.paste(title, (label_x + 30, (img.height - title.height) // 2), title)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, "JPEG", quality=90)
    print(f"{path}: {img.width}x{img.height}")


def stacked_fixture(path):
    """A wide spine whose title is set small in two tight lines ("THE WINGS" over "OF THE DOVE") with the
    author smaller still beside them, between the spine's rules: read as one block, the first line and the
    author run into one text line and the first line is lost."""
    fnt = font("DejaVuSerif.ttf", 24)
    first, second = text_image("THE WINGS", fnt, (28, 26, 24)), text_image("OF THE DOVE", fnt, (28, 26, 24))
    author = text_image("HENRY JAMES", font("DejaVuSerif.ttf", 11), (28, 26, 24))
    top = 48
    img = Image.new("RGB", (28 + second.width + 24 + author.width + 28, first.height + second.height + 2 * top + 7), (222, 220, 214))
    draw = ImageDraw.Draw(img)
    for x in (8, 13, img.width - 14, img.width - 9):
        draw.rectangle((x, 4, x + 2, img.height - 5), fill=(30, 28, 26))
    img.paste(first, (28, top), first)
    img.paste(second, (28, top + first.height + 7), second)
    img.paste(author, (28 + second.width + 24, top + first.height - author.height // 2), author)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, "JPEG", quality=90)
    print(f"{path}: {img.width}x{img.height}")


def sizes_fixture(path, seed=31):
    """Title, author and imprint in three sizes on one line along a narrow spine between its rules, soft
    (blur σ 3 px, as a photo's full-size decode shows it): read as one text line, the LSTM misreads the
    title; read block by block (Tesseract's sparse-text layout), it comes out whole. Most such lines read
    either way; this one is where the two part."""
    rng = np.random.default_rng(seed)
    title = text_image("Sister Carrie", font("DejaVuSans.ttf", 36), (92, 90, 88))
    author = text_image("Theodore Dreiser", font("DejaVuSans.ttf", 12), (120, 118, 114))
    imprint = text_image("Gull House", font("DejaVuSans-Bold.ttf", 12), (70, 68, 66))
    height = title.height + 24
    img = Image.new("RGB", (40 + title.width + 20 + author.width + 30 + imprint.width + 40, height), (168, 164, 156))
    draw = ImageDraw.Draw(img)
    for x in (8, 15, img.width - 18, img.width - 11):
        draw.rectangle((x, 4, x + 3, height - 5), fill=(40, 38, 36))
    middle = height // 2
    img.paste(title, (40, middle - title.height // 2), title)
    img.paste(author, (40 + title.width + 20, middle - author.height // 2), author)
    img.paste(imprint, (40 + title.width + 20 + author.width + 30, middle - imprint.height // 2), imprint)
    img = img.filter(ImageFilter.GaussianBlur(3.0))
    pixels = np.asarray(img).astype(np.float64) + rng.normal(0, 2, (img.height, img.width))[:, :, None]
    img = Image.fromarray(np.clip(np.rint(pixels), 0, 255).astype(np.uint8))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, "JPEG", quality=75)
    print(f"{path}: {img.width}x{img.height}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "SampleImages"))
    parser.add_argument("--fixtures", default=os.path.join(os.path.dirname(__file__), "..", "Tests", "SpineReadingTests", "Fixtures"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    line_fixture(os.path.join(args.fixtures, "title_line.jpg"))
    # Bold 20 px capitals: turned over they still read as letters, confidently ("40 ASNOH AHL").
    line_fixture(os.path.join(args.fixtures, "capitals_line.jpg"), "THE HOUSE OF MIRTH", "DejaVuSans-Bold.ttf", 20)
    label_fixture(os.path.join(args.fixtures, "label_line.jpg"))
    grainy_fixture(os.path.join(args.fixtures, "grainy_line.jpg"))
    stacked_fixture(os.path.join(args.fixtures, "stacked_title.jpg"))
    sizes_fixture(os.path.join(args.fixtures, "three_sizes_line.jpg"))
    for spec in SPECS:
        rng = random.Random(spec["seed"])
        img, rows, books = render(spec, rng)
        truth = {"image": spec["name"] + ".jpg", "width": img.width, "height": img.height, "generator": "generate_sample_images.py",
                 "seed": spec["seed"], "n_rows": spec["rows"], "rows": rows, "books": books,
                 "exif_orientation": spec.get("exif_orientation", 1), "has_gps": bool(spec.get("gps"))}
        stored = img
        exif = Image.Exif()
        if spec.get("exif_orientation") == 6:
            # orientation 6: the viewer turns the stored pixels 90° clockwise, so store them turned counter-clockwise
            stored = img.transpose(Image.Transpose.ROTATE_90)
            exif[0x0112] = 6
        if spec.get("gps"):
            gps = exif.get_ifd(0x8825)
            gps[1] = "N"
            gps[2] = (52.0, 22.0, 30.0)
            gps[3] = "E"
            gps[4] = (4.0, 53.0, 10.0)
        path = os.path.join(args.out, spec["name"] + ".jpg")
        stored.save(path, "JPEG", quality=85, exif=exif.tobytes() if len(exif) else b"")
        with open(os.path.join(args.out, spec["name"] + ".json"), "w") as f:
            json.dump(truth, f, indent=1)
        print(f"{path}: {img.width}x{img.height}, {len(books)} books, {os.path.getsize(path) // 1024} KB")


if __name__ == "__main__":
    main()
