// usage: node .shots.mjs <baseUrl> <user> <password> <outDir> <width...>
import { chromium } from 'playwright-core';
const [base, user, password, out, ...widths] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--disable-gpu','--no-first-run'] });
const pages = JSON.parse(process.env.PAGES ?? '[]');
for (const width of widths.map(Number)) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  for (const [name, address] of pages) {
    await page.goto(`${base}${address}`);
    await page.locator('main h1').first().waitFor({ timeout: 60000 });
    await page.waitForLoadState('networkidle').catch(() => {});
    await page.waitForTimeout(1500);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.screenshot({ path: `${out}/${name}-${width}.png`, fullPage: true });
    console.log(`${name}-${width}.png overflow=${overflow}`);
  }
  await context.close();
}
await browser.close();
