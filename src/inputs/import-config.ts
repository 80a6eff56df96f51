/**
 * `zonesim import config <application.yml | dubbo.properties>`: reads a config file as Dubbo users
 * have it and maps it onto scenario-format fragments. Owns the choice of format and encoding;
 * config-files.ts reads the formats (with line numbers), map-dubbo-config.ts maps the properties,
 * format-config-yaml.ts prints the fragment; the caller reads the file.
 */
import { isUtf8 } from 'node:buffer';
import { parseProperties, parseSpringYaml } from './config-files.js';
import { mapDubboConfig, type ImportedConfig } from './map-dubbo-config.js';
import { UsageError } from '../scenario/io.js';

export { parseProperties, parseSpringYaml, type Property } from './config-files.js';

/**
 * Reads a config file: `.properties` as Java properties, anything else as (Spring Boot) YAML. Given
 * the file's bytes, properties are decoded as ISO-8859-1, as `Properties.load` and Spring Boot read
 * them (other characters are written as `\uXXXX`), unless a UTF-8 byte order mark says otherwise;
 * YAML is decoded as UTF-8, which it must be.
 */
export function importConfig(input: string | Uint8Array, fileName: string): ImportedConfig {
  const bytes = typeof input === 'string' ? undefined : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  // ISO-8859-1 maps each byte to one character, so the ASCII tests below see the file as it is.
  const latin1 = bytes === undefined ? (input as string) : bytes.toString('latin1');
  const isProperties = /\.properties$/i.test(fileName) || (!/\.ya?ml$/i.test(fileName) && /^\s*dubbo\.[\w.-]+\s*[=:]/m.test(latin1) && !/^\s*dubbo:\s*$/m.test(latin1));
  const utf8 = () => (bytes === undefined ? (input as string) : bytes.toString('utf8'));
  if (!isProperties) {
    if (bytes !== undefined && !isUtf8(bytes)) throw new UsageError('not a YAML file: not UTF-8 text (Spring Boot reads YAML files as UTF-8)');
    return mapDubboConfig(parseSpringYaml(utf8()));
  }
  const bom = bytes !== undefined && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const result = mapDubboConfig(parseProperties(bom ? utf8() : latin1));
  const lines = bytes === undefined || bom ? [] : latin1.split(/\r\n|\r|\n/).flatMap((l, i) => (/[\x80-\xff]/.test(l) ? [i + 1] : []));
  if (lines.length > 0) {
    const shown = `${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', ...' : ''}`;
    const utf8Hint = isUtf8(bytes!) ? ' (this file looks like UTF-8: write such characters as \\uXXXX escapes)' : '';
    result.notes.unshift(`line${lines.length === 1 ? '' : 's'} ${shown}: bytes above 127 read as ISO-8859-1 characters, as Java reads .properties files${utf8Hint}`);
  }
  return result;
}
