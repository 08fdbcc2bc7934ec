/**
 * Every stylesheet of style/ reaches the page: JupyterLab loads package.json "styleModule"
 * (style/index.js) for a prebuilt extension, "style" (style/index.css) elsewhere. A stylesheet
 * missing from either leaves its widgets unstyled (NaN rows not highlighted, 0 px histograms).
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const STYLE = path.join(ROOT, 'style');

function cssFiles(): string[] {
  return fs.readdirSync(STYLE).filter(f => f.endsWith('.css') && f !== 'index.css').sort();
}

describe('stylesheets', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

  it('package.json names style/index.js and style/index.css', () => {
    expect(pkg.styleModule).toBe('style/index.js');
    expect(pkg.style).toBe('style/index.css');
  });

  it('style/index.js imports every stylesheet', () => {
    const js = fs.readFileSync(path.join(ROOT, pkg.styleModule), 'utf8');
    const imported = Array.from(js.matchAll(/import\s+['"]\.\/([^'"]+\.css)['"]/g)).map(m => m[1]);
    expect(cssFiles().length).toBeGreaterThanOrEqual(2);
    for (const f of cssFiles()) {
      expect(imported).toContain(f);
    }
  });

  it('style/index.css imports every stylesheet', () => {
    const css = fs.readFileSync(path.join(ROOT, pkg.style), 'utf8');
    const imported = Array.from(css.matchAll(/@import\s+url\(['"]?([^'")]+\.css)['"]?\)/g)).map(m => m[1]);
    for (const f of cssFiles()) {
      expect(imported).toContain(f);
    }
  });
});
