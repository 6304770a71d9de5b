/**
 * Databricks returns int64 ids (e.g. clusters/get `spark_context_id`) as bare JSON numbers that can
 * exceed 2^53. Integer literals of 16+ digits are quoted before parsing so they survive as exact
 * decimal strings; ids are compared as strings everywhere.
 */
const bigIntegerLiteral = /([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g;

export function parseLosslessJson(text: string): unknown {
  return JSON.parse(quoteBigIntegers(text));
}

function quoteBigIntegers(text: string): string {
  let result = '';
  let inString = false;
  let segmentStart = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\' && inString) {
      index += 1;
      continue;
    }
    if (char !== '"') continue;
    if (!inString) {
      result += text.slice(segmentStart, index).replace(bigIntegerLiteral, '$1"$2"');
      segmentStart = index;
    } else {
      result += text.slice(segmentStart, index + 1);
      segmentStart = index + 1;
    }
    inString = !inString;
  }
  result += text.slice(segmentStart).replace(bigIntegerLiteral, '$1"$2"');
  return result;
}
