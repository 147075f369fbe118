/** The words of the bulk statuses (issue 16 §2: text search needs text with words of every frequency). */

/** Common English words, most frequent first: word k is drawn about (k + 1)^-0.6 as often as the first. */
export const VOCABULARY = `the to and a of in is it you that for on this with be are have was just so but not
my at all like what about from they out your up can get one time today good people more now we if know
new when do how will there some an would think day really back see make by going night work because
love want well much still great year first also right me then best way post thing morning feel here
over last only them into their our after week too need never other take home even look why life
world while find little long come before off made again sure free days old game through same tomorrow
place open music coffee friends book read weekend city summer winter rain sun garden walk train
station bike river forest mountain beach lake island village street market bread cheese soup tea
kitchen dinner lunch breakfast recipe baking pizza pasta salad apple orange lemon cherry berry
chocolate cake cookie sugar salt pepper garlic onion tomato potato carrot bean rice noodle fish
chicken meat vegetable fruit flower tree grass leaf stone sand cloud storm snow wind fog sky star
moon planet space rocket science history art painting photo camera film movie series episode
podcast radio song album concert guitar piano drum violin singer band dance theatre poem story
novel library school teacher student class lesson exam homework university research paper data
code software computer server network internet browser email phone keyboard screen mouse battery
cable printer update release version feature bug issue project team meeting office desk chair
window door room house roof wall floor bed sofa lamp clock mirror picture cat dog bird horse cow
sheep goat rabbit fox wolf bear deer owl duck frog bee butterfly spider turtle whale dolphin shark
octopus penguin elephant giraffe zebra lion tiger monkey panda koala kangaroo federation mastodon
fediverse instance timeline hashtag boost follow reply thread toot emoji sticker meme joke laugh
smile happy sad angry tired hungry sleepy excited nervous calm quiet loud bright dark warm cold hot
fresh sweet bitter sour spicy crunchy soft hard heavy light fast slow early late young ancient
modern simple strange wonderful terrible beautiful ugly clever silly brave gentle honest polite
lucky busy lazy curious patient proud shy wild tame empty full broken shiny rusty wooden golden
silver purple yellow green blue red white black pink brown grey`
  .split(/\s+/)
  .filter((word) => word !== '');

/**
 * SQL of 6–19 words drawn from `$<param>` (VOCABULARY as text[]) with a Zipf-like skew, per row of a
 * query that has `i` (the count varies with it; the words with random(), seeded by the session).
 */
export function drawnWordsSql(param: number): string {
  return `array_to_string(ARRAY(SELECT ($${param}::text[])[1 + floor(power(random(), 2.5) * cardinality($${param}::text[]))::int]
                                  FROM generate_series(1, 6 + (i % 14)::int)), ' ')`;
}
