// A Dockerfile read the way the builder reads it, enough for test/deploy/files.test.ts: instructions (continued
// lines joined, comments dropped), their flags, and the exec-form arguments of CMD and HEALTHCHECK.
import { readFileSync } from 'node:fs'

interface Instruction {
  /** FROM, COPY, RUN, …, upper case. */
  name: string
  /** `--from=build` → { from: 'build' }. */
  flags: Record<string, string>
  /** What follows the instruction and its flags. */
  rest: string
  /** Index of the stage (FROM) it belongs to. */
  stage: number
}

export function readDockerfile(path: string): Instruction[] {
  const text = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
  let stage = -1
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [, name, args] = /^\s*(\w+)\s+(.*)$/.exec(line)!
      const flags: Record<string, string> = {}
      let rest = args!.trim()
      for (let m = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest); m; m = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest)) {
        flags[m[1]!] = m[2] ?? ''
        rest = rest.slice(m[0].length)
      }
      if (name!.toUpperCase() === 'FROM') stage++
      return { name: name!.toUpperCase(), flags, rest, stage }
    })
}

/** The exec form's argument list (`["node", "x"]`); throws on the shell form, which would put a shell at PID 1. */
export function execForm(rest: string): string[] {
  const args = JSON.parse(rest) as unknown
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new Error(`not the exec form: ${rest}`)
  return args
}

/** COPY's sources and destination (the last word). */
export function copyArgs(rest: string): { sources: string[]; destination: string } {
  const words = rest.split(/\s+/)
  return { sources: words.slice(0, -1), destination: words[words.length - 1]! }
}
